// `docwright agents sync`, `agents unrecognized` and `agents list`'s read of the synced version,
// as admin commands: they run on the database wherever it can be reached (a running server's
// embedded database through its control socket). Sync and the stored version are made like the
// referrer list's (list-sync-commands.ts).
import { Type } from 'typebox';
import {
  exportUnrecognizedAgents,
  selectLatestAgentList,
  syncAgentList,
} from '../../modules/analytics/index.ts';
import { getProject } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { defineListSyncCommands } from './list-sync-commands.ts';

export const { sync: agentsSync, stored: agentsStored } = defineListSyncCommands({
  noun: 'agents',
  sync: syncAgentList,
  selectLatest: selectLatestAgentList,
});

export const agentsUnrecognized = defineAdminCommand({
  name: 'agents unrecognized',
  input: Type.Object(
    {
      projectId: Type.String({ minLength: 1 }),
      limit: Type.Integer({ minimum: 1, maximum: 1000 }),
    },
    { additionalProperties: false },
  ),
  async run(db, input) {
    await getProject(db, input.projectId); // an unknown project is a clear 404, not an empty list
    return exportUnrecognizedAgents(db, input.projectId, { limit: input.limit, offset: 0 });
  },
});

// `docwright agents sync`, `agents unrecognized` and `agents list`'s read of the synced version,
// as admin commands: they
// run on the database wherever it can be reached (a running server's embedded database through
// its control socket). The list's text is read by the CLI (a file or URL) and sent as input.
import { Type } from 'typebox';
import {
  AgentSyncRefused,
  analyticsErrors,
  exportUnrecognizedAgents,
  SYNC_MAX_BYTES,
  selectLatestAgentList,
  syncAgentList,
} from '../../modules/analytics/index.ts';
import { getProject } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';

export const agentsSync = defineAdminCommand({
  name: 'agents sync',
  input: Type.Object(
    {
      text: Type.String({ maxLength: SYNC_MAX_BYTES }),
      source: Type.String({ minLength: 1, maxLength: 2048 }),
      maxDropPercent: Type.Integer({ minimum: 0, maximum: 100 }),
    },
    { additionalProperties: false },
  ),
  async run(db, input) {
    try {
      return await syncAgentList(db, {
        text: input.text,
        source: input.source,
        maxDropShare: input.maxDropPercent / 100,
      });
    } catch (error) {
      if (error instanceof AgentSyncRefused) throw analyticsErrors.agent_list_refused(error.message);
      throw error;
    }
  },
});

export const agentsStored = defineAdminCommand({
  name: 'agents stored',
  input: Type.Object({}, { additionalProperties: false }),
  async run(db) {
    const stored = await selectLatestAgentList(db);
    return stored === null ? null : { ...stored, syncedAt: stored.syncedAt.toISOString() };
  },
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

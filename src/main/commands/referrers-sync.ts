// `docwright agents sync --referrers` and the read of the synced AI-referrer version (`agents list`,
// `import-logs`), as admin commands, like agents-sync.ts for the agent list: they run on the
// database wherever it can be reached. The list's text is read by the CLI and sent as input.
import { Type } from 'typebox';
import {
  AgentSyncRefused,
  analyticsErrors,
  SYNC_MAX_BYTES,
  selectLatestReferrerList,
  syncReferrerList,
} from '../../modules/analytics/index.ts';
import { defineAdminCommand } from './admin-command.ts';

export const referrersSync = defineAdminCommand({
  name: 'referrers sync',
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
      return await syncReferrerList(db, {
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

export const referrersStored = defineAdminCommand({
  name: 'referrers stored',
  input: Type.Object({}, { additionalProperties: false }),
  async run(db) {
    const stored = await selectLatestReferrerList(db);
    return stored === null ? null : { ...stored, syncedAt: stored.syncedAt.toISOString() };
  },
});

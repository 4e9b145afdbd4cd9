// The admin commands every synced list has (the AI agent list, the AI-referrer list): store a new
// version from a text the CLI read (a file or URL), and read the version in use. They run on the
// database wherever it can be reached (a running server's embedded database through its control
// socket); the lists differ only in how their text is checked and where it is stored.
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { AgentSyncRefused, analyticsErrors, SYNC_MAX_BYTES } from '../../modules/analytics/index.ts';
import { defineAdminCommand } from './admin-command.ts';

interface ListSync<Result, Stored extends { syncedAt: Date }> {
  /** The command words, e.g. "agents": gives "agents sync" and "agents stored". */
  noun: string;
  sync(db: Database, options: { text: string; source: string; maxDropShare: number }): Promise<Result>;
  selectLatest(db: Database): Promise<Stored | null>;
}

export function defineListSyncCommands<Result, Stored extends { syncedAt: Date }>(
  list: ListSync<Result, Stored>,
) {
  const sync = defineAdminCommand({
    name: `${list.noun} sync`,
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
        return await list.sync(db, {
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
  const stored = defineAdminCommand({
    name: `${list.noun} stored`,
    input: Type.Object({}, { additionalProperties: false }),
    async run(db) {
      const latest = await list.selectLatest(db);
      return latest === null ? null : { ...latest, syncedAt: latest.syncedAt.toISOString() };
    },
  });
  return { sync, stored };
}

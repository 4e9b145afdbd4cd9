// The two admin commands behind `docwright import-logs`: read the ledger of some logs, and apply
// one chunk. The CLI runs them on its own database, or sends them to the running server that
// holds the embedded database (they are listed in registry.ts for that).
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { ImportChunkSchema } from '../../modules/analytics/import/chunk.ts';
import { applyChunk, readLedger } from '../../modules/analytics/import/ledger.ts';
import type { LedgerEntry } from '../../modules/analytics/import/sink.ts';
import { defineAdminCommand } from './admin-command.ts';

export const importLogsLedger = defineAdminCommand({
  name: 'import-logs ledger',
  input: Type.Object(
    {
      projectId: Type.String({ minLength: 1 }),
      fingerprints: Type.Array(Type.String({ pattern: '^[0-9a-f]{64}$' }), { maxItems: 1000 }),
    },
    { additionalProperties: false },
  ),
  run: (db, input) => ledgerEntries(db, input.projectId, input.fingerprints),
});

/** The ledger rows as JSON, as they cross the control socket. */
export async function ledgerEntries(
  db: Database,
  projectId: string,
  fingerprints: string[],
): Promise<LedgerEntry[]> {
  const rows = await readLedger(db, projectId, fingerprints);
  return rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString() }));
}

export const importLogsChunk = defineAdminCommand({
  name: 'import-logs chunk',
  input: ImportChunkSchema,
  run: (db, input) => applyChunk(db, input),
});

// The sink that applies chunks to a database this process holds.
import type { Database } from '../../../db/database.ts';
import { applyChunk, readLedger } from './ledger.ts';
import type { ImportSink, LedgerEntry } from './sink.ts';

/** The ledger rows as JSON, as they also cross the control socket. */
export async function readLedgerEntries(
  db: Database,
  projectId: string,
  fingerprints: string[],
): Promise<LedgerEntry[]> {
  const rows = await readLedger(db, projectId, fingerprints);
  return rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString() }));
}

export function databaseImportSink(db: Database, where: string): ImportSink {
  return {
    where,
    readLedger: (projectId, fingerprints) => readLedgerEntries(db, projectId, fingerprints),
    applyChunk: (chunk) => applyChunk(db, chunk),
    close: async () => {},
  };
}

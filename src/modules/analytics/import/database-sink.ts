// The sink that applies chunks to a database this process holds.
import type { Database } from '../../../db/database.ts';
import { currentDaySalt, utcDayOf } from '../store/index.ts';
import { applyChunk, foldImportedVisitors, readLedger } from './ledger.ts';
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

/** The current day's visitor salt as hex, made when missing; null for another day. */
export async function currentDaySaltHex(db: Database, day: string, now = Date.now()): Promise<string | null> {
  if (day !== utcDayOf(now)) return null;
  return Buffer.from(await currentDaySalt(db, day)).toString('hex');
}

export function databaseImportSink(db: Database, where: string): ImportSink {
  return {
    where,
    readLedger: (projectId, fingerprints) => readLedgerEntries(db, projectId, fingerprints),
    applyChunk: (chunk) => applyChunk(db, chunk),
    currentDaySalt: (day) => currentDaySaltHex(db, day),
    // The visitor ids of the last chunks, staged (ledger.ts), folded before the import ends.
    close: async () => {
      await foldImportedVisitors(db);
    },
  };
}

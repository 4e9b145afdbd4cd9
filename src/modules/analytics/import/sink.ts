// Where an import's chunks go: the database in this process, or the running server that holds
// the embedded database. Both apply chunks with applyChunk (ledger.ts); only the path differs.
import type { ImportChunk } from './chunk.ts';
import type { ChunkOutcome } from './ledger.ts';

/** A ledger row as JSON (it may have crossed the control socket). */
export interface LedgerEntry {
  fingerprint: string;
  sourceName: string;
  lines: number;
  prefixSha256: string;
  accepted: number;
  dropped: number;
  malformed: number;
  updatedAt: string;
}

export interface ImportSink {
  /** Said in the summary: where the counts went. */
  readonly where: string;
  /** The ledger rows of these logs (none for an empty list; checks that the project exists). */
  readLedger(projectId: string, fingerprints: string[]): Promise<LedgerEntry[]>;
  applyChunk(chunk: ImportChunk): Promise<ChunkOutcome>;
  /**
   * The stored visitor salt of `day` (YYYY-MM-DD) when it is the current UTC day where the
   * database is, as hex; null for any other day (visitor-days.ts).
   */
  currentDaySalt(day: string): Promise<string | null>;
  close(): Promise<void>;
}

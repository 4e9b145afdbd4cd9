// The log-import ledger: reading where each log stands, and applying one chunk of lines together
// with the ledger's advance, in one transaction. A chunk applies only where the ledger stands at
// its `from`, so a chunk is counted at most once whatever crashes or retries happen around it.
import type { Database } from '../../../db/database.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import { getProject } from '../../projects/index.ts';
import { addViews, foldStagedVisitors, type PageViewCount, ViewSums } from '../store/index.ts';
import { type UnrecognizedRowInput, upsertUnrecognizedAgents } from '../unrecognized-queries.ts';
import { EMPTY_SHA256, type ImportChunk } from './chunk.ts';
import { importErrors } from './errors.ts';
import {
  advanceLedgerRow,
  insertLedgerRowIfAbsent,
  type LedgerRow,
  lockLedgerRow,
  selectLedgerRows,
} from './queries.ts';

export type { LedgerRow };

export interface ChunkOutcome {
  /** Lines of the log counted once this chunk is in. */
  lines: number;
  /** True when the chunk had already been applied (a retry after a lost answer): nothing changed. */
  alreadyApplied: boolean;
  /** Views added by this chunk (0 when already applied). */
  views: number;
}

/** The ledger rows of these logs; also checks that the project exists (project_not_found). */
export async function readLedger(
  db: Database,
  projectId: string,
  fingerprints: readonly string[],
): Promise<LedgerRow[]> {
  await getProject(db, projectId);
  if (fingerprints.length === 0) return [];
  return selectLedgerRows(db, projectId, fingerprints);
}

function unrecognizedRows(chunk: ImportChunk): UnrecognizedRowInput[] {
  return (chunk.unrecognized ?? []).map((row, index) => {
    const firstSeen = new Date(row.firstSeen);
    const lastSeen = new Date(row.lastSeen);
    if (Number.isNaN(firstSeen.getTime()) || Number.isNaN(lastSeen.getTime())) {
      throw httpErrors.invalid_body(`Unrecognized agent ${index} of the chunk has an unreadable time.`);
    }
    return {
      projectId: chunk.projectId,
      productKey: row.product.toLowerCase(),
      trafficClass: row.trafficClass,
      product: row.product,
      reason: row.reason,
      example: row.example,
      views: row.views,
      firstSeen,
      lastSeen,
    };
  });
}

/** Whole seconds of the UTC hour an ISO time is in; a bad time is the chunk's fault (400). */
function hourSecondsOf(text: string, what: string): number {
  const ms = new Date(text).getTime();
  if (Number.isNaN(ms))
    throw httpErrors.invalid_body(`${what} of the chunk has an unreadable hour "${text}".`);
  return Math.floor(ms / 3_600_000) * 3600;
}

/** Adds the chunk's visitor ids and referred views to the sums the store writes. */
function addVisitorsAndReferrals(chunk: ImportChunk, sums: ViewSums): void {
  (chunk.visitors ?? []).forEach((set, index) => {
    const hour = hourSecondsOf(set.hour, `Visitor set ${index}`);
    for (const id of set.ids) sums.visitors.add(chunk.projectId, hour, set.trafficClass, set.path, id);
  });
  (chunk.referrals ?? []).forEach((row, index) => {
    const hour = hourSecondsOf(row.hour, `Referral ${index}`);
    sums.referrals.add(chunk.projectId, hour, row.assistant, row.path, row.views);
  });
}

/** Chunks applied since their staged visitor ids were last folded, per database. */
const unfoldedChunks = new WeakMap<Database, number>();
/**
 * Chunks whose visitor ids are folded together: each (hour, page, class) sketch row, and its day,
 * month and site rows, is then written once per this many chunks instead of once per chunk.
 * What waits is bounded by it; every read of visitors folds first, and so does the sink's close.
 */
const CHUNKS_PER_FOLD = 16;

export async function applyChunk(db: Database, chunk: ImportChunk): Promise<ChunkOutcome> {
  const outcome = await applyChunkOnce(db, chunk);
  const unfolded = (unfoldedChunks.get(db) ?? 0) + 1;
  unfoldedChunks.set(db, unfolded >= CHUNKS_PER_FOLD ? 0 : unfolded);
  if (unfolded >= CHUNKS_PER_FOLD) await foldStagedVisitors(db);
  return outcome;
}

/** The end of an import on `db`: the visitor ids its last chunks staged are folded now. */
export async function foldImportedVisitors(db: Database): Promise<void> {
  unfoldedChunks.set(db, 0);
  await foldStagedVisitors(db);
}

async function applyChunkOnce(db: Database, chunk: ImportChunk): Promise<ChunkOutcome> {
  if (chunk.to.lines <= chunk.from.lines) {
    throw httpErrors.invalid_body(
      `A chunk must end after it starts (from line ${chunk.from.lines} to ${chunk.to.lines}).`,
    );
  }
  // The formats go in now; the views are checked and summed in the transaction (addRow).
  const sums = new ViewSums();
  const rows = chunk.rows.map((row, index): PageViewCount => {
    const hour = new Date(row.hour);
    if (Number.isNaN(hour.getTime())) {
      throw httpErrors.invalid_body(`Row ${index} of the chunk has an unreadable hour "${row.hour}".`);
    }
    if (row.format !== undefined) {
      const hourSeconds = Math.floor(hour.getTime() / 3_600_000) * 3600;
      sums.formats.addView(
        chunk.projectId,
        hourSeconds,
        row.format,
        row.trafficClass,
        row.agent,
        row.verification,
        row.views,
      );
      sums.formats.addPage(chunk.projectId, hourSeconds, row.format, row.trafficClass, row.path, row.views);
    }
    return {
      projectId: chunk.projectId,
      hour,
      path: row.path,
      trafficClass: row.trafficClass,
      agent: row.agent,
      verification: row.verification,
      views: row.views,
    };
  });

  addVisitorsAndReferrals(chunk, sums);

  return db.transaction(async (tx) => {
    await getProject(tx, chunk.projectId);
    const key = { projectId: chunk.projectId, fingerprint: chunk.fingerprint };
    if (chunk.from.lines === 0) {
      await insertLedgerRowIfAbsent(tx, { ...key, sourceName: chunk.sourceName, emptySha256: EMPTY_SHA256 });
    }
    const row = await lockLedgerRow(tx, key.projectId, key.fingerprint);
    if (row !== null && row.lines === chunk.to.lines && row.prefixSha256 === chunk.to.sha256) {
      return { lines: row.lines, alreadyApplied: true, views: 0 };
    }
    if (row === null || row.lines !== chunk.from.lines || row.prefixSha256 !== chunk.from.sha256) {
      throw importErrors.import_conflict(
        `The ledger of "${chunk.sourceName}" stands at ${row?.lines ?? 0} lines, not at line ${chunk.from.lines} where this chunk starts: ` +
          'another import of the same log ran meanwhile. Run the import again; it continues from the ledger.',
      );
    }
    for (const [index, row] of rows.entries()) sums.addRow(row, index);
    // Visitor ids staged, folded by the import's sink every few chunks (database-sink.ts).
    const written = await addViews(tx, sums, { stageVisitors: true });
    await upsertUnrecognizedAgents(tx, unrecognizedRows(chunk));
    await advanceLedgerRow(tx, {
      ...key,
      sourceName: chunk.sourceName,
      lines: chunk.to.lines,
      prefixSha256: chunk.to.sha256,
      ...chunk.stats,
    });
    return { lines: chunk.to.lines, alreadyApplied: false, views: written.views };
  });
}

// Page views staged by ingestion (migration 0008) and their merge into the rollups.
//
// An ingest group commit only appends its views, summed per rollup key, as one row: the clients
// wait for one small insert, not for every key's hourly and level upserts. The merge moves staged
// rows into the rollups (rollups.ts, the same writer log import and tests use) and deletes them
// in one transaction, so a view is counted exactly once whichever process merges and whenever it
// crashes. Its cost grows with the distinct keys it writes, not the views: merging a second's
// worth of groups at once writes each popular page's row once instead of once per group.
//
// The process that staged a row still holds its sums (staged-merger.ts) and merges it by id,
// without reading it back; rows staged elsewhere (another process, or one killed before merging)
// are read and decoded.
//
// Freshness: every export calls mergeStagedViews first, so a view acknowledged before the read
// began is in the answer. Merges are serialised by an advisory lock: a read that comes while
// another process merges waits for it instead of missing the rows that merge holds.
import type { Database, Queryable } from '../../../db/database.ts';
import type { EncodedFormats } from './format-sums.ts';
import { writeFormats } from './format-writes.ts';
import type { EncodedReferrals } from './referral-sums.ts';
import { writeReferrals } from './referral-writes.ts';
import { recordSortedCountsIn } from './rollups.ts';
import {
  deleteOldestStaged,
  deleteStagedByIds,
  insertStagedCounts,
  lockStaging,
  selectAnyStaged,
  selectExistingProjects,
} from './staged-queries.ts';
import { type EncodedSums, ViewSums } from './view-sums.ts';
import { stagedVisitorIds } from './visitor-staging.ts';

/** Staged rows read back per merge transaction (each row is one group commit's keys). */
const ROWS_PER_MERGE = 100;

/**
 * Appends a group's sums inside the group's transaction; returns the staged row's id. `visitors`
 * are the ids to stage: the sums' own, or those of them not committed before (visitor-memo.ts).
 */
export async function stageViews(tx: Queryable, sums: ViewSums, visitors = sums.visitors): Promise<number> {
  // Visitor ids go straight to their own staging (in the same statement), folded into the
  // sketches later: the merge then never carries them.
  const referrals = sums.referrals.isEmpty ? null : JSON.stringify(sums.referrals.encode());
  const formats = sums.formats.isEmpty ? null : JSON.stringify(sums.formats.encode());
  return insertStagedCounts(
    tx,
    { views: sums.views, counts: JSON.stringify(sums.encode()), referrals, formats },
    stagedVisitorIds(visitors),
  );
}

export interface MergeResult {
  /** Staged rows merged. */
  rows: number;
  /** Views they added to the rollups. */
  views: number;
  /** Views dropped because their project was deleted after they were acknowledged. */
  orphanViews: number;
}

/** Staged rows whose sums the caller holds, by id (the writer's own, not merged yet). */
export type KnownStaged = ReadonlyMap<number, ViewSums>;

/** One transaction: the known rows still staged and the oldest others into the rollups. */
async function mergeOnce(db: Database, known: KnownStaged): Promise<MergeResult> {
  return db.transaction(async (tx) => {
    await lockStaging(tx);
    const sums = new ViewSums();
    const taken = known.size === 0 ? [] : await deleteStagedByIds(tx, [...known.keys()]);
    for (const id of taken) sums.addSums(known.get(id)!);
    const staged = await deleteOldestStaged(tx, ROWS_PER_MERGE);
    for (const row of staged) {
      sums.addEncoded(JSON.parse(row.counts) as EncodedSums);
      if (row.referrals !== null) sums.referrals.addEncoded(JSON.parse(row.referrals) as EncodedReferrals);
      if (row.formats !== null) sums.formats.addEncoded(JSON.parse(row.formats) as EncodedFormats);
    }
    const rows = taken.length + staged.length;
    if (rows === 0) return { rows: 0, views: 0, orphanViews: 0 };
    const counts = sums.sortedCounts();
    const existing = await selectExistingProjects(tx, [...new Set(counts.map((c) => c.projectId))]);
    const written = await recordSortedCountsIn(
      tx,
      counts.filter((c) => existing.has(c.projectId)),
    );
    await writeReferrals(tx, sums.referrals, existing);
    await writeFormats(tx, sums.formats, existing);
    return { rows, views: written.views, orphanViews: sums.views - written.views };
  });
}

/**
 * Merges everything staged when it is called (and whatever arrives meanwhile, batch by batch).
 * Every export calls it before reading, so acknowledged views are in the answer; with nothing
 * staged it costs one indexed read and no transaction. `known` are rows whose sums the caller
 * holds (the writer's merger): taken by id, not read back.
 */
export async function mergeStagedViews(db: Database, known: KnownStaged = new Map()): Promise<MergeResult> {
  const total: MergeResult = { rows: 0, views: 0, orphanViews: 0 };
  if (known.size === 0 && !(await selectAnyStaged(db))) return total;
  for (let first = true; ; first = false) {
    const merged = await mergeOnce(db, first ? known : new Map());
    total.rows += merged.rows;
    total.views += merged.views;
    total.orphanViews += merged.orphanViews;
    if (merged.rows < ROWS_PER_MERGE) return total;
  }
}

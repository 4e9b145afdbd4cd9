// Adding views straight to the store, inside the caller's transaction (log import, with its
// ledger's advance): the hourly rollups and the levels above them, the referrals and the formats
// and MCP calls and the visitor sketches, through the same writers the staged-views merge and the
// visitor fold use. Ingest stages its views instead (stageViews) and the merger moves them here
// later.
import type { Queryable } from '../../../db/database.ts';
import { writeFormats } from './format-writes.ts';
import { writeReferrals } from './referral-writes.ts';
import { type RecordResult, recordSortedCountsIn } from './rollups.ts';
import type { ViewSums } from './view-sums.ts';
import { insertStagedVisitorIds } from './visitor-queries.ts';
import { writeVisitorSets } from './visitor-writes.ts';

/**
 * Writes the sums in the caller's transaction, which must be READ COMMITTED (the default; see
 * locked-writes.ts). Visitor ids go into the sketches in the same transaction, or, with
 * `stageVisitors`, into visitor_ids_staged as ingest stages them, folded later (every read of
 * visitors folds first; so do the ingest writer's merger and a log import's end): a log import's
 * chunks then write each sketch row once per fold instead of once per chunk. Either way the
 * ids are committed with the views, so a log import's ledger counts them once.
 */
export async function addViews(
  tx: Queryable,
  sums: ViewSums,
  options: { stageVisitors?: boolean } = {},
): Promise<RecordResult> {
  const written = await recordSortedCountsIn(tx, sums.sortedCounts());
  if (!sums.referrals.isEmpty) await writeReferrals(tx, sums.referrals, sums.referrals.projectIds());
  await writeFormats(tx, sums.formats);
  if (!sums.visitors.isEmpty) {
    if (options.stageVisitors) await insertStagedVisitorIds(tx, sums.visitors.encodeBinary());
    else await writeVisitorSets(tx, sums.visitors);
  }
  return written;
}

// Adding views straight to the store, inside the caller's transaction (log import, with its
// ledger's advance): the hourly rollups and the levels above them, the referrals and the formats
// and MCP calls, through the same writers the staged-views merge uses. Ingest stages its views
// instead (stageViews) and the merger moves them here later.
import type { Queryable } from '../../../db/database.ts';
import { writeFormats } from './format-writes.ts';
import { writeReferrals } from './referral-writes.ts';
import { type RecordResult, recordSortedCountsIn } from './rollups.ts';
import type { ViewSums } from './view-sums.ts';

/**
 * Writes the sums in the caller's transaction, which must be READ COMMITTED (the default; see
 * locked-writes.ts). Visitor ids are not taken: they reach the sketches only staged (stageViews)
 * and folded, so a batch that carries some is refused rather than half written.
 */
export async function addViews(tx: Queryable, sums: ViewSums): Promise<RecordResult> {
  if (!sums.visitors.isEmpty) throw new TypeError('addViews takes no visitor ids: stage them with the views');
  const written = await recordSortedCountsIn(tx, sums.sortedCounts());
  if (!sums.referrals.isEmpty) await writeReferrals(tx, sums.referrals, sums.referrals.projectIds());
  await writeFormats(tx, sums.formats);
  return written;
}

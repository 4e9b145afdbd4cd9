// The analytics store: the storage engine under the reports, ingest and import. Everything
// outside this folder uses it through this file only (rule analytics-store-through-index), and
// this file is small on purpose: how views are kept (hourly rollups, the day and month levels,
// the ranking cache, staged rows) stays inside.
//
//   add views     ViewSums (a batch's counts per key), stageSums (ingest: one row in the
//                 caller's transaction, merged later), mergeStagedViews (the merger),
//                 recordPageViews / recordPageViewsIn (write straight to the levels: log import)
//   read a page   readPathPage (totals and paths), readAgentPage (totals and agents)
//   read a series readSeries, readExtent
//
// The bucket grid (whole UTC hours, days, months) is exported too: reports align ranges to it.
export type { HourRange } from './queries.ts';
export { type MonthRun, monthsToSeal, type Span, splitRange } from './range-split.ts';
export { isRankingLive, type PathViewsRow, selectRankingPage } from './ranking-queries.ts';
export { rankingFor } from './rankings.ts';
export {
  type AgentPage,
  type PageWindow,
  type PathPage,
  type PathPageOptions,
  readAgentPage,
  readExtent,
  readPathPage,
  readSeries,
  type SeriesInterval,
} from './reads.ts';
export { selectReferralPage, selectReferralsByAssistant } from './referral-queries.ts';
export { beginSnapshotRead, type TrafficBucketRow } from './report-queries.ts';
export { type PageViewCount, recordPageViews, recordPageViewsIn } from './rollups.ts';
export { hourDaySpanParams, pathSpanParams } from './span-params.ts';
export { mergeStagedViews, stageSums } from './staged-views.ts';
export {
  addMonths,
  ceilToDay,
  DAY_SECONDS,
  floorToDay,
  floorToMonth,
  HOUR_SECONDS,
} from './time-buckets.ts';
export { type EncodedSums, ViewSums } from './view-sums.ts';
export { VisitorHasher, VisitorSalts } from './visitor-ids.ts';
export {
  type SketchRow,
  selectFirstSketchMonth,
  selectGeneration,
  selectRangeSketches,
} from './visitor-queries.ts';
export { SITE_PATH, type VisitorClass, VisitorSets } from './visitor-sets.ts';
export { unionCount, VisitorSketch } from './visitor-sketch.ts';
export { FOLD_INTERVAL_MS, foldStagedVisitors } from './visitor-staging.ts';
export { writeVisitorSets } from './visitor-writes.ts';

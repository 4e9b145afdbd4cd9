// The analytics store: the storage engine under the reports, ingest and import. It writes page
// views to the hourly rollups and the levels above them (days, months, the ranking cache), stages
// and merges views written by ingest, and reads the levels back for the exports. Everything
// outside this folder uses it through this file only (rule analytics-store-through-index).
export type { KeyedCount } from './keyed-count.ts';
export { writeHourlyOnly } from './level-writes.ts';
export type { HourRange } from './queries.ts';
export { type MonthRun, monthsToSeal, type Span, splitRange } from './range-split.ts';
export { isRankingLive, type PathViewsRow, selectRankingPage } from './ranking-queries.ts';
export { rankingFor } from './rankings.ts';
export {
  beginSnapshotRead,
  selectAgentsPage,
  selectAgentTotals,
  selectDailyTraffic,
  selectHourlyTraffic,
  selectPathViewsPageFromLevels,
  selectTrafficExtent,
  selectTrafficTotals,
  type TrafficBucketRow,
} from './report-queries.ts';
export {
  aggregate,
  type PageViewCount,
  recordPageViews,
  recordPageViewsIn,
  UPSERT_BATCH_SIZE,
} from './rollups.ts';
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

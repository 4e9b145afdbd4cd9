// The analytics store: the storage engine under the reports, ingest and import. Everything
// outside this folder uses it through this file only (rule analytics-store-through-index), and
// this file is small on purpose: how views are kept (hourly rollups, the day and month levels,
// the ranking cache, staged rows) stays inside.
//
//   add views     ViewSums (a batch's counts per key), stageSums (ingest: one row in the
//                 caller's transaction, merged later), mergeStagedViews (the merger),
//                 recordPageViews / recordPageViewsIn (write straight to the levels: log import)
//                 VisitorSalts / VisitorHasher (the day's keyed visitor ids that go with views),
//                 VisitorSets (a batch's ids per key), CommittedVisitors (ids a writer staged
//                 already), foldStagedVisitors (ids staged by ingest into the visitor sketches)
//   read a page   readPathPage (totals and paths), readAgentPage (totals and agents, with
//                 crawls against referrals), readReferralPage, readVisitorRanking
//   read a series readSeries, readExtent, readFormatSeries (with the views per format)
//   formats       FormatSums (a batch's non-html views and MCP calls, carried by ViewSums),
//                 recordFormatsIn (log import), readMcpCallPage
export type { AgentFormatRow } from './format-queries.ts';
export {
  type FormatBucketRow,
  type FormatSeries,
  type McpCallPage,
  type McpCallRow,
  readFormatSeries,
  readMcpCallPage,
} from './format-reads.ts';
export { FormatSums, type McpCall, type StoredFormat } from './format-sums.ts';
export { writeFormats as recordFormatsIn } from './format-writes.ts';
export type { HourRange } from './queries.ts';
export {
  type AgentPage,
  type PageWindow,
  type PathPage,
  type PathPageOptions,
  type ReferralPage,
  readAgentPage,
  readExtent,
  readPathPage,
  readReferralPage,
  readSeries,
  type SeriesInterval,
} from './reads.ts';
export type { TrafficBucketRow } from './report-queries.ts';
export { type PageViewCount, recordPageViews, recordPageViewsIn } from './rollups.ts';
export { type StagedMergerOptions, StagedViewMerger } from './staged-merger.ts';
export { mergeStagedViews, stageSums } from './staged-views.ts';
export { ViewSums } from './view-sums.ts';
export { VisitorHasher, VisitorSalts } from './visitor-ids.ts';
export { CommittedVisitors } from './visitor-memo.ts';
export { readVisitorRanking, type VisitorCountRow, type VisitorRanking } from './visitor-reads.ts';
export { type VisitorClass, VisitorSets } from './visitor-sets.ts';
export { FOLD_INTERVAL_MS, foldStagedVisitors } from './visitor-staging.ts';

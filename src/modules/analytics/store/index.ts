// The analytics store: the storage engine under the reports, ingest and import. Everything in src
// outside this folder uses it through this file only (rule analytics-store-through-index), and
// this file is its whole interface, kept small on purpose: how views are kept (hourly rollups,
// the day and month levels, the ranking cache, staged rows, visitor sketches, locked writes)
// stays inside. test/unit/analytics-store-interface.test.ts lists what it exports.
//
//   the records     ViewSums: a batch of views summed per key, with their non-html formats and
//                   MCP calls (McpCall), AI referrals and visitor ids; built by the producers
//                   (rows: PageViewCount). VisitorSalts gives the day's VisitorHasher for the ids;
//                   log import hashes past days itself (VisitorHasher, utcDayOf) and takes the
//                   current day's stored salt (currentDaySalt), so its ids match ingest's.
//   add views       addViews (straight to the levels and sketches, in the caller's transaction:
//                   log import, which stages its visitor ids and has them folded every few
//                   chunks: foldStagedVisitors),
//                   stageViews (ingest: one row in the group's transaction, merged later by the
//                   StagedViewMerger the writer runs; CommittedVisitors keeps ids it staged)
//   read a page     readPage(report: paths, agents, referrals, mcp-calls, visitors): one page and
//                   the range's totals from one snapshot
//   read a series   readSeries (buckets of views, per format too), readExtent (first, last hour)
export { addViews } from './add-views.ts';
export type { McpCall } from './format-sums.ts';
export type { HourRange } from './queries.ts';
export {
  type PageQuery,
  type Pages,
  readPage,
  readSeries,
  type Series,
  type SeriesQuery,
} from './read-page.ts';
export { type AgentPage, type PageWindow, readExtent } from './reads.ts';
export type { PageViewCount } from './rollups.ts';
export { type StagedMergerOptions, StagedViewMerger } from './staged-merger.ts';
export { stageViews } from './staged-views.ts';
export { type ByPath, ViewSums } from './view-sums.ts';
export { currentDaySalt, utcDayOf, VisitorHasher, VisitorSalts } from './visitor-ids.ts';
export { CommittedVisitors } from './visitor-memo.ts';
export type { VisitorSets } from './visitor-sets.ts';
export { foldStagedVisitors } from './visitor-staging.ts';

// The store's reads as the reports ask for them: one page of a report over a range (with the
// range's totals), or the series of buckets. Which tables a report reads (the ranking cache, the
// levels, the sketches, the format and MCP-call levels) is this folder's business; a report names
// what it wants (`report`) and gets its page. Each read merges what ingest staged first, so a view
// acknowledged before the read began is in the answer.
import type { Database } from '../../../db/database.ts';
import { readFormatPathPage } from './format-page-reads.ts';
import { type FormatSeries, type McpCallPage, readFormatSeries, readMcpCallPage } from './format-reads.ts';
import type { StoredFormat } from './format-sums.ts';
import type { HourRange } from './queries.ts';
import {
  type AgentPage,
  type PageWindow,
  type PathPage,
  type ReferralPage,
  readAgentPage,
  readPathPage,
  readReferralPage,
  readSeries as readTrafficSeries,
  type SeriesInterval,
} from './reads.ts';
import { readVisitorPage, type VisitorRanking } from './visitor-reads.ts';

/** What a report reads, and what only that report needs to say. */
export type PageQuery =
  /** Views per path (total descending, then path in byte order). */
  | {
      report: 'paths';
      /** How long building the range's ranking waits for writers before summing the levels. */
      buildLockTimeoutMs?: number | undefined;
      /** Pages reaching at most this many rows are found without a ranking (0: always a ranking). */
      topPathsMaxRows?: number | undefined;
      /** Count only the views served in this format (the per-page format levels are read only then). */
      format?: StoredFormat | 'html' | undefined;
    }
  /** Views per AI agent, with every agent and the referrals per assistant for the crawls. */
  | { report: 'agents' /** The agents' views per format too. */; withFormats?: boolean }
  /** Human views AI assistants referred, per (assistant, path), with the totals per assistant. */
  | { report: 'referrals' }
  /** MCP calls per (tool, method, client), with the most-called tools and clients. */
  | { report: 'mcp-calls' /** How many tools and clients the summaries name. */; summaryLimit: number }
  /** Distinct visitors per path (total descending, then path); `nowMs` says which months are whole. */
  | {
      report: 'visitors';
      nowMs: number;
      /** Pages reaching at most this many rows are found without a ranking (0: always a ranking). */
      topVisitorsMaxRows?: number | undefined;
    };

/** The page each report answers with. */
export interface Pages {
  paths: PathPage;
  agents: AgentPage;
  referrals: ReferralPage;
  'mcp-calls': McpCallPage;
  visitors: VisitorRanking;
}

/**
 * One page of `query.report` over `range`, with the range's totals from the same snapshot. Ask
 * for one row more than shown to learn whether another page follows.
 */
export async function readPage<Q extends PageQuery>(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  query: Q,
): Promise<Pages[Q['report']]> {
  return (await readAnyPage(db, projectId, range, page, query)) as Pages[Q['report']];
}

async function readAnyPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  query: PageQuery,
): Promise<Pages[keyof Pages]> {
  switch (query.report) {
    case 'paths':
      if (query.format !== undefined) return readFormatPathPage(db, projectId, range, page, query.format);
      return readPathPage(db, projectId, range, page, {
        buildLockTimeoutMs: query.buildLockTimeoutMs,
        topPathsMaxRows: query.topPathsMaxRows,
      });
    case 'agents':
      return readAgentPage(db, projectId, range, page, query.withFormats ?? false);
    case 'referrals':
      return readReferralPage(db, projectId, range, page);
    case 'mcp-calls':
      return readMcpCallPage(db, projectId, range, page, query.summaryLimit);
    case 'visitors':
      return readVisitorPage(db, projectId, range, page, query.nowMs, query.topVisitorsMaxRows);
  }
}

/** A series: the buckets with views, and (byFormat) their views per stored format. */
export type Series = FormatSeries;

export interface SeriesQuery {
  interval: SeriesInterval;
  /** Epoch seconds, on the interval's grid (UTC midnight for days); `to` exclusive. */
  from: number;
  to: number;
  /** Each bucket's views per format too (the format levels are read only then). */
  byFormat?: boolean;
}

/** The buckets of [from, to) that have views, in order; with byFormat, from one snapshot. */
export async function readSeries(db: Database, projectId: string, query: SeriesQuery): Promise<Series> {
  const { interval, from, to } = query;
  if (query.byFormat) return readFormatSeries(db, projectId, interval, from, to);
  return { traffic: await readTrafficSeries(db, projectId, interval, from, to), formats: [] };
}

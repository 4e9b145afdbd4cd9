// The store's read side, as the reports use it: one page of paths or agents with the range's
// totals, and the traffic series. Every read first merges the views ingest has staged, so a view
// acknowledged before the read began is in the answer; a page and its totals come from one
// snapshot, so they agree while views are being written.
import type { Database, Queryable } from '../../../db/database.ts';
import { type AgentFormatRow, selectAgentFormats } from './format-queries.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import { isRankingLive, type PathViewsRow, selectRankingPage } from './ranking-queries.ts';
import { liveRanking, rankingFor } from './rankings.ts';
import { selectReferralPage, selectReferralsByAssistant } from './referral-queries.ts';
import {
  type AgentViewsRow,
  beginSnapshotRead,
  selectAgentsPage,
  selectAgentTotals,
  selectDailyTraffic,
  selectHourlyTraffic,
  selectPathViewsPageFromLevels,
  selectTrafficExtent,
  selectTrafficTotals,
  type TrafficBucketRow,
  type TrafficTotalsRow,
} from './report-queries.ts';
import { hourDaySpanParams, pathSpanParams } from './span-params.ts';
import { mergeStagedViews } from './staged-views.ts';
import { selectTopPathsPage, TOP_PATHS_MAX_ROWS } from './top-paths.ts';

export interface PageWindow {
  limit: number;
  offset: number;
}

export interface PathPage {
  totals: TrafficTotalsRow;
  rows: PathViewsRow[];
}

export interface PathPageOptions {
  /** How long building a ranking waits for writers before reading the levels directly. */
  buildLockTimeoutMs?: number | undefined;
  /**
   * Pages reaching at most this many rows are found without a ranking when none is live
   * (top-paths.ts); default TOP_PATHS_MAX_ROWS. 0 always reads a ranking (tests of the cache).
   */
  topPathsMaxRows?: number | undefined;
}

/** A ranking can vanish between finding it and reading it (evicted, or gone stale): try again. */
const RANKING_ATTEMPTS = 3;

/**
 * One snapshot: the totals, and the page from the ranking, or (rankingId null) from the top of the
 * range's buckets (top-paths.ts) when topPaths, else summed from the levels. Null: the ranking
 * vanished, or the top of the buckets was too costly to read; the caller then builds a ranking.
 */
async function readPathPageOnce(
  db: Database,
  projectId: string,
  range: HourRange,
  rankingId: number | null,
  page: PageWindow,
  topPaths = false,
): Promise<PathPage | null> {
  return db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    if (rankingId !== null && !(await isRankingLive(tx, rankingId))) return null;
    const totals = await selectTrafficTotals(tx, projectId, hourDaySpanParams(splitRange(range, null)));
    const rows =
      rankingId !== null
        ? await selectRankingPage(tx, rankingId, page)
        : topPaths
          ? await selectTopPathsPage(tx, projectId, range, page)
          : await selectPathViewsPageFromLevels(tx, projectId, pathSpanParams(splitRange(range, null)), page);
    return rows === null ? null : { totals, rows };
  });
}

/**
 * The range's traffic totals and one page of paths in the export's order (total descending, then
 * path in byte order). The page comes from the range's live ranking (rankings.ts) when there is
 * one; else, for the first pages, from the top of the range's buckets without building a ranking
 * (top-paths.ts); else from a ranking built now. After two rankings vanished under it, or when
 * writers keep the build waiting, it is summed from the levels instead.
 */
export async function readPathPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  options: PathPageOptions = {},
): Promise<PathPage> {
  await mergeStagedViews(db);
  if (page.offset + page.limit <= (options.topPathsMaxRows ?? TOP_PATHS_MAX_ROWS)) {
    const read = await readPathPageOnce(
      db,
      projectId,
      range,
      await liveRanking(db, projectId, range),
      page,
      true,
    );
    if (read !== null) return read;
  }
  for (let attempt = 1; ; attempt++) {
    const rankingId =
      attempt < RANKING_ATTEMPTS ? await rankingFor(db, projectId, range, options.buildLockTimeoutMs) : null;
    const read = await readPathPageOnce(db, projectId, range, rankingId, page);
    if (read !== null) return read;
  }
}

export interface AgentPage {
  totals: Awaited<ReturnType<typeof selectAgentTotals>>;
  rows: AgentViewsRow[];
  /** Every agent of the range (for the per-operator crawls), same order. */
  everyAgent: AgentViewsRow[];
  /** Human views each AI assistant referred over the range. */
  referred: { assistant: string; views: number }[];
  /** With withFormats: AI views per agent in each format but html (html: the rest of its views). */
  formats: AgentFormatRow[];
}

/** Agents read for the per-operator crawls: far more than any list names. */
const MAX_AGENTS = 10_000;

/**
 * The range's AI-agent totals and one page of agents (total descending, then name), with every
 * agent and the referrals per assistant from the same snapshot, for the crawls-vs-referrals view;
 * with `withFormats`, the agents' views per format too.
 */
export async function readAgentPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  withFormats = false,
): Promise<AgentPage> {
  await mergeStagedViews(db);
  const spans = hourDaySpanParams(splitRange(range, null));
  return db.transaction(async (tx: Queryable) => {
    await beginSnapshotRead(tx);
    const totals = await selectAgentTotals(tx, projectId, spans);
    const rows = await selectAgentsPage(tx, projectId, spans, page);
    const everyAgent = await selectAgentsPage(tx, projectId, spans, { limit: MAX_AGENTS, offset: 0 });
    const referred = await selectReferralsByAssistant(tx, projectId, spans);
    const formats = withFormats ? await selectAgentFormats(tx, projectId, spans) : [];
    return { totals, rows, everyAgent, referred, formats };
  });
}

export interface ReferralPage {
  /** Referred human views per assistant over the whole range. */
  byAssistant: { assistant: string; views: number }[];
  rows: Awaited<ReturnType<typeof selectReferralPage>>;
}

/** Referred views per assistant, and one page of (assistant, path) rows, from one snapshot. */
export async function readReferralPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
): Promise<ReferralPage> {
  await mergeStagedViews(db);
  const spans = hourDaySpanParams(splitRange(range, null));
  return db.transaction(async (tx: Queryable) => {
    await beginSnapshotRead(tx);
    return {
      byAssistant: await selectReferralsByAssistant(tx, projectId, spans),
      rows: await selectReferralPage(tx, projectId, spans, page),
    };
  });
}

export type SeriesInterval = 'hour' | 'day';

/** The buckets of [from, to) that have views, in order; day bounds on UTC midnight. */
export async function readSeries(
  db: Database,
  projectId: string,
  interval: SeriesInterval,
  from: number,
  to: number,
): Promise<TrafficBucketRow[]> {
  await mergeStagedViews(db);
  return interval === 'hour'
    ? selectHourlyTraffic(db, projectId, from, to)
    : selectDailyTraffic(db, projectId, from, to);
}

/** The first and last hour with views (epoch seconds), or nulls when the project has none. */
export async function readExtent(
  db: Database,
  projectId: string,
): Promise<{ first: number | null; last: number | null }> {
  await mergeStagedViews(db);
  return selectTrafficExtent(db, projectId);
}

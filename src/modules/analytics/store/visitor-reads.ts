// The store's read of distinct visitors: the range's sketches (whole months, whole days, edge
// hours) merged per page and for the whole site, counted, and ranked by total visitors. A ranking
// is kept in memory per (project, range) and used while the project's sketch generation is
// unchanged, so paging through it and asking again cost one small query; any fold of new visitors
// into the project makes the next read rank again. The first pages of a range not ranked yet are
// found without ranking it (top-visitors.ts) and kept the same way, per page. See
// docs/analytics-visitors.md.
import type { Database, Queryable } from '../../../db/database.ts';
import { addMonths, floorToMonth } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import { beginSnapshotRead } from './report-queries.ts';
import { pathSpanParams } from './span-params.ts';
import { mergeStagedViews } from './staged-views.ts';
import { selectTopVisitorsPage, TOP_VISITORS_MAX_ROWS, type TopVisitors } from './top-visitors.ts';
import { countPath, mergeByPath, type VisitorCountRow, visitorOrder } from './visitor-counts.ts';
import { selectFirstSketchMonth, selectGeneration, selectRangeSketches } from './visitor-queries.ts';
import { SITE_PATH } from './visitor-sets.ts';
import { foldStagedVisitors } from './visitor-staging.ts';

export interface VisitorRanking {
  totals: { human: number; ai: number; total: number };
  /** Pages with visitors in the range (a ranking: all of them): total descending, then path ascending. */
  rows: VisitorCountRow[];
}

interface CachedRanking extends VisitorRanking {
  generation: number;
}

/** Rankings kept (least recently used dropped first): a dashboard's few ranges per project. */
const MAX_CACHED_RANKINGS = 32;
const rankings = new Map<string, CachedRanking>();

function remember(key: string, ranking: CachedRanking): void {
  rankings.delete(key);
  rankings.set(key, ranking);
  while (rankings.size > MAX_CACHED_RANKINGS) rankings.delete(rankings.keys().next().value!);
}

/** Top pages kept (least recently used dropped first), each for one generation. */
const MAX_CACHED_TOP_PAGES = 64;
const topPages = new Map<string, TopVisitors & { generation: number }>();

function rememberTop(key: string, top: TopVisitors & { generation: number }): void {
  topPages.delete(key);
  topPages.set(key, top);
  while (topPages.size > MAX_CACHED_TOP_PAGES) topPages.delete(topPages.keys().next().value!);
}

/**
 * Rows [offset, offset + limit) of the range's distinct visitors per page, and the site's; views
 * and visitor ids acknowledged before the call are in it. `nowMs` says which months have sketches
 * of their own (up to this month). A page within the first `topMaxRows` rows of a range not
 * ranked yet is found by the early stop (top-visitors.ts) instead of ranking every page.
 */
export async function readVisitorPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: { limit: number; offset: number },
  nowMs: number,
  topMaxRows = TOP_VISITORS_MAX_ROWS,
): Promise<VisitorRanking> {
  await mergeStagedViews(db);
  await foldStagedVisitors(db);
  const key = `${projectId}\0${range.from}\0${range.to}`;
  const generation = await selectGeneration(db, projectId);
  let ranking = rankings.get(key);
  if (ranking === undefined || ranking.generation !== generation) {
    if (page.offset + page.limit <= topMaxRows) {
      const topKey = `${key}\0${page.offset}\0${page.limit}`;
      const cached = topPages.get(topKey);
      if (cached !== undefined && cached.generation === generation) {
        rememberTop(topKey, cached);
        return { totals: cached.totals, rows: cached.rows };
      }
      const top = await db.transaction(async (tx) => {
        await beginSnapshotRead(tx);
        const at = await selectGeneration(tx, projectId);
        const found = await selectTopVisitorsPage(tx, projectId, range, nowMs, page);
        return found === null ? null : { ...found, generation: at };
      });
      if (top !== null) {
        rememberTop(topKey, top);
        return { totals: top.totals, rows: top.rows };
      }
    }
    ranking = await db.transaction(async (tx) => {
      await beginSnapshotRead(tx);
      return rank(tx, projectId, range, nowMs);
    });
  }
  remember(key, ranking);
  return { totals: ranking.totals, rows: ranking.rows.slice(page.offset, page.offset + page.limit) };
}

/** Reads and merges the range's sketches (in the caller's snapshot) and ranks the pages. */
async function rank(
  tx: Queryable,
  projectId: string,
  range: HourRange,
  nowMs: number,
): Promise<CachedRanking> {
  const generation = await selectGeneration(tx, projectId);
  const firstMonth = await selectFirstSketchMonth(tx, projectId);
  if (firstMonth === null) return { generation, totals: { human: 0, ai: 0, total: 0 }, rows: [] };
  // Every month's sketches are written with its views (the current month's too), so any whole
  // month of the range reads as one row per page; months after next month's start read as days.
  const months = { from: firstMonth, to: addMonths(floorToMonth(nowMs / 1000), 1) };
  const spans = pathSpanParams(splitRange(range, months));
  const byPath = mergeByPath(await selectRangeSketches(tx, projectId, spans));
  let totals = { human: 0, ai: 0, total: 0 };
  const rows: VisitorCountRow[] = [];
  for (const [path, sketches] of byPath) {
    const row = countPath(path, sketches);
    if (path === SITE_PATH) totals = { human: row.human, ai: row.ai, total: row.total };
    else rows.push(row);
  }
  rows.sort(visitorOrder);
  return { generation, totals, rows };
}

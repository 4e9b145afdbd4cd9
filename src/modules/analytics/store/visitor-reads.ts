// The store's read of distinct visitors: the range's sketches (whole months, whole days, edge
// hours) merged per page and for the whole site, counted, and ranked by total visitors. A ranking
// is kept in memory per (project, range) and used while the project's sketch generation is
// unchanged, so paging through it and asking again cost one small query; any fold of new visitors
// into the project makes the next read rank again. See docs/analytics-visitors.md.
import type { Database, Queryable } from '../../../db/database.ts';
import { addMonths, floorToMonth } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import { beginSnapshotRead } from './report-queries.ts';
import { pathSpanParams } from './span-params.ts';
import { mergeStagedViews } from './staged-views.ts';
import { selectFirstSketchMonth, selectGeneration, selectRangeSketches } from './visitor-queries.ts';
import { SITE_PATH } from './visitor-sets.ts';
import { unionCount, VisitorSketch } from './visitor-sketch.ts';
import { foldStagedVisitors } from './visitor-staging.ts';

export interface VisitorCountRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface VisitorRanking {
  totals: { human: number; ai: number; total: number };
  /** Every page with visitors in the range: total descending, then path ascending. */
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

/**
 * The range's distinct visitors, site-wide and per page; views and visitor ids acknowledged before
 * the call are in it. `nowMs` says which months have sketches of their own (up to this month).
 */
export async function readVisitorRanking(
  db: Database,
  projectId: string,
  range: HourRange,
  nowMs: number,
): Promise<VisitorRanking> {
  await mergeStagedViews(db);
  await foldStagedVisitors(db);
  const key = `${projectId}\0${range.from}\0${range.to}`;
  let ranking = rankings.get(key);
  const generation = await selectGeneration(db, projectId);
  if (ranking === undefined || ranking.generation !== generation) {
    ranking = await db.transaction(async (tx) => {
      await beginSnapshotRead(tx);
      return rank(tx, projectId, range, nowMs);
    });
  }
  remember(key, ranking);
  return ranking;
}

interface PathSketches {
  human: VisitorSketch | null;
  ai: VisitorSketch | null;
}

function merged(into: VisitorSketch | null, bytes: Uint8Array | null): VisitorSketch | null {
  if (bytes === null) return into;
  const sketch = VisitorSketch.decode(bytes);
  if (into === null) return sketch;
  into.merge(sketch);
  return into;
}

const countOf = (sketch: VisitorSketch | null) => (sketch === null ? 0 : sketch.count());

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
  const byPath = new Map<string, PathSketches>();
  for (const row of await selectRangeSketches(tx, projectId, spans)) {
    let sketches = byPath.get(row.path);
    if (sketches === undefined) {
      sketches = { human: null, ai: null };
      byPath.set(row.path, sketches);
    }
    sketches.human = merged(sketches.human, row.human);
    sketches.ai = merged(sketches.ai, row.ai);
  }
  let totals = { human: 0, ai: 0, total: 0 };
  const rows: VisitorCountRow[] = [];
  for (const [path, { human, ai }] of byPath) {
    const counts = { human: countOf(human), ai: countOf(ai) };
    // Estimates of large sets could otherwise break total's bounds by a visitor or two.
    const union = Math.min(
      Math.max(unionCount([human, ai]), counts.human, counts.ai),
      counts.human + counts.ai,
    );
    const row = { path, ...counts, total: union };
    if (path === SITE_PATH) totals = { human: row.human, ai: row.ai, total: row.total };
    else rows.push(row);
  }
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { generation, totals, rows };
}

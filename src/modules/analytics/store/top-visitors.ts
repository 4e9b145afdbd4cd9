// The first pages of a range's visitor ranking, found without merging every page's sketches: the
// threshold algorithm /views uses (top-paths.ts), over the bounds stored with each sketch row
// (migration 0027, visitor-bounds.ts). Ranking a range merges and counts every page's rows (about
// a million daily rows of up to 16 KiB for 50,000 pages over 30 days); page 1 needs only the
// pages that can be in the first k.
//
// Each daily and monthly bucket of the range is a list of pages in descending order of bound.
// Reading the first `depth` pages of every list gives candidates. A page's count over the range is
// at most pageBound(sum of its rows' bounds); a page seen in no list has, in each list, at most
// that list's last bound read (0 once the list is exhausted), so its count is at most pageBound
// of their sum, the threshold. A candidate's bound is the same sum with its own bound where it was
// read. Candidates are then counted exactly as a ranking would (their rows merged: visitor-counts.ts),
// best bound first, until the k-th counted page is above the threshold and above every candidate
// not counted; else the depth grows fourfold. Edge hours have no list of their own: an hour's ids
// are some of its day's, so the union of a day's edge hours is bounded by the day's row.
//
// The page is the ranking's page (same rows, same counts, same order) unless an estimate is off by
// more than ESTIMATE_MARGIN (visitor-bounds.ts). Gives up (null) when the page is too deep, the
// range has too many buckets, a row has no bound yet, or the lists must be read too deep: the
// caller then ranks the range as before.
import type { Queryable } from '../../../db/database.ts';
import { addMonths, DAY_SECONDS, floorToDay, floorToMonth, HOUR_SECONDS } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';
import { type Span, splitRange } from './range-split.ts';
import {
  type SketchProbes,
  selectBoundHeads,
  selectProbedSketches,
  selectSketchDayExtent,
} from './top-visitor-queries.ts';
import { pageBound } from './visitor-bounds.ts';
import { countPath, mergeByPath, type VisitorCountRow, visitorOrder } from './visitor-counts.ts';
import { selectFirstSketchMonth } from './visitor-queries.ts';
import { SITE_PATH } from './visitor-sets.ts';

/** Pages reaching further than this many rows are read from a ranking. */
export const TOP_VISITORS_MAX_ROWS = 1000;
/** Ranges made of more lists than this are ranked (e.g. a year of days outside whole months). */
const MAX_LISTS = 400;
/** Rows read from the lists' heads, all lists together, before giving up. */
const MAX_HEAD_ROWS = 400_000;
/** Pages counted (their rows merged) before giving up: past it, ranking costs about as much. */
const MAX_COUNTED = 5000;
const FIRST_DEPTH = 64;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

export interface TopVisitors {
  totals: { human: number; ai: number; total: number };
  rows: VisitorCountRow[];
}

interface Lists {
  /** Whole days of the range, then the days holding its edge hours (their lists only bound). */
  days: number[];
  wholeDays: number;
  months: number[];
  hours: number[];
}

/** Every bucket start of a span on a grid, the span clipped to [first, last]. */
function bucketsOf(span: Span, first: number, last: number, next: (at: number) => number): number[] {
  const from = Math.max(span.from ?? Number.NEGATIVE_INFINITY, first);
  const to = Math.min(span.to ?? Number.POSITIVE_INFINITY, next(last));
  const out: number[] = [];
  for (let at = from; at < to; at = next(at)) out.push(at);
  return out;
}

/**
 * The range as the ranking reads it (the same split: months with sketches of their own, days,
 * edge hours), with unbounded ends clipped to the days that have sketches.
 */
async function rangeLists(
  db: Queryable,
  projectId: string,
  range: HourRange,
  nowMs: number,
): Promise<Lists | null> {
  const firstMonth = await selectFirstSketchMonth(db, projectId);
  const extent = await selectSketchDayExtent(db, projectId);
  if (firstMonth === null || extent === null) return null;
  const months = { from: firstMonth, to: addMonths(floorToMonth(nowMs / 1000), 1) };
  const split = splitRange(range, months);
  const hours = split.hours.flatMap((span) =>
    bucketsOf(span, extent.first, extent.last + DAY_SECONDS - HOUR_SECONDS, (h) => h + HOUR_SECONDS),
  );
  const days = split.days.flatMap((span) =>
    bucketsOf(span, extent.first, extent.last, (d) => d + DAY_SECONDS),
  );
  const edgeDays = [...new Set(hours.map(floorToDay))];
  const monthList = split.months.flatMap((span) =>
    bucketsOf(span, floorToMonth(extent.first), floorToMonth(extent.last), (m) => addMonths(m, 1)),
  );
  return { days: [...days, ...edgeDays], wholeDays: days.length, months: monthList, hours };
}

/** What the lists' heads say of one page: its bound in each list where it was read. */
type Seen = Map<number, number>;

/**
 * Rows [offset, offset + limit) of the range's visitor ranking and the range's totals, as
 * ranking every page would give them (but for an estimate off by more than the margin), or null
 * when this way cannot or would cost more. Runs in the caller's snapshot.
 */
export async function selectTopVisitorsPage(
  db: Queryable,
  projectId: string,
  range: HourRange,
  nowMs: number,
  page: { limit: number; offset: number },
): Promise<TopVisitors | null> {
  const k = page.offset + page.limit;
  const lists = await rangeLists(db, projectId, range, nowMs);
  if (lists === null) return { totals: { human: 0, ai: 0, total: 0 }, rows: [] };
  const listCount = lists.days.length + lists.months.length;
  if (listCount > MAX_LISTS) return null;
  const buckets = {
    days: lists.days.slice(0, lists.wholeDays).map(iso),
    months: lists.months.map(iso),
    hours: lists.hours.map(iso),
  };
  const listDays = lists.days.map(iso);
  // Pages counted exactly, as a ranking counts them; the site's row gives the totals.
  const counted = new Map<string, VisitorCountRow>();
  const count = async (paths: string[]) => {
    const probes: SketchProbes = { levels: [], buckets: [], paths: [] };
    for (const path of paths) {
      for (const [level, list] of [
        ['d', buckets.days],
        ['m', buckets.months],
        ['h', buckets.hours],
      ] as const) {
        for (const bucket of list) {
          probes.levels.push(level);
          probes.buckets.push(bucket);
          probes.paths.push(path);
        }
      }
    }
    const sketches = mergeByPath(await selectProbedSketches(db, projectId, probes));
    for (const path of paths) {
      const sketch = sketches.get(path);
      counted.set(path, sketch === undefined ? { path, human: 0, ai: 0, total: 0 } : countPath(path, sketch));
    }
  };
  await count([SITE_PATH]);
  const site = counted.get(SITE_PATH)!;
  counted.delete(SITE_PATH);
  const totals = { human: site.human, ai: site.ai, total: site.total };
  if (listCount === 0) return { totals, rows: [] };

  for (let depth = Math.max(FIRST_DEPTH, 2 * k); ; depth *= 4) {
    const heads = await selectBoundHeads(db, projectId, listDays, buckets.months, depth);
    const read = new Array<number>(listCount).fill(0);
    const last = new Array<number>(listCount).fill(Number.POSITIVE_INFINITY);
    const seen = new Map<string, Seen>();
    for (const row of heads) {
      // Rows written before migration 0027 wait for the backfill (visitor-bound-backfill.ts).
      if (row.bound === null) return null;
      const j = row.level === 'd' ? row.bucket : lists.days.length + row.bucket;
      read[j]!++;
      last[j] = Math.min(last[j]!, row.bound);
      let entry = seen.get(row.path);
      if (entry === undefined) {
        entry = new Map();
        seen.set(row.path, entry);
      }
      entry.set(j, row.bound);
    }
    // A list read to its end bounds every page not read in it by 0: it has no visitors there.
    const exhausted = read.map((n) => n < depth);
    const listBound = last.map((value, j) => (exhausted[j] ? 0 : value));
    const threshold = pageBound(listBound.reduce((a, b) => a + b, 0));
    const open: { path: string; upper: number }[] = [];
    for (const [path, entry] of seen) {
      if (counted.has(path)) continue;
      let sum = 0;
      for (let j = 0; j < listCount; j++) sum += entry.get(j) ?? listBound[j]!;
      open.push({ path, upper: pageBound(sum) });
    }
    open.sort((a, b) => b.upper - a.upper);
    // Count the best bounds until every page left uncounted is below the k-th counted one (a page
    // equal to it could come first by name, so it is counted too).
    let next = 0;
    for (;;) {
      const ranked = [...counted.values()].filter((r) => r.total > 0).sort(visitorOrder);
      const kth = ranked.length >= k ? ranked[k - 1]!.total : -1;
      let end = next;
      // The first k by bound, then every page whose bound reaches the k-th count.
      const batch = kth < 0 ? k - ranked.length : Number.POSITIVE_INFINITY;
      while (end < open.length && open[end]!.upper >= kth && end - next < batch) end++;
      if (end === next) break;
      if (counted.size + end - next > MAX_COUNTED) return null;
      await count(open.slice(next, end).map((o) => o.path));
      next = end;
    }
    const ranked = [...counted.values()].filter((r) => r.total > 0).sort(visitorOrder);
    // All lists read to their end: every page with visitors was read. Otherwise the k-th must beat
    // any unseen page strictly (an unseen page equal to it could come first by name).
    if (exhausted.every(Boolean) || (ranked.length >= k && ranked[k - 1]!.total > threshold)) {
      return { totals, rows: ranked.slice(page.offset, k) };
    }
    if (depth * listCount >= MAX_HEAD_ROWS) return null;
  }
}

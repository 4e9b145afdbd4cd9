// The first pages of a range's path ranking, found without building the ranking: Fagin's threshold
// algorithm over the buckets the range is made of. Building a ranking sums every path of the range
// (about a million daily rows for 50,000 paths over 30 days: 1-3 s on PostgreSQL), which is what a
// range nobody asked before used to cost. But page 1 only needs the paths that can be in the first
// k, and views are heavily skewed: the paths on top of the range are on top of most of its days.
//
// Each daily (or sealed monthly) bucket of the range is a list of paths in descending order of
// views (migration 0026's indexes). Reading the first `depth` paths of every list gives
// candidates, whose exact views over the range are then summed by index probes; a path seen in no
// list has, in each list, at most that list's last value read (0 once the list is exhausted), so
// its total is at most the sum of those values, the threshold. Once the k-th best candidate is
// above the threshold, no unseen path can be among the first k, and the page is exact, in the
// export's order. Otherwise the depth grows fourfold. Edge hours (a range not on midnight) have no
// list of their own: the list of the day holding them bounds them (an hour's views of a path are
// at most its day's), and their exact views come from the hourly rows, probing whichever is
// fewer: the edge hours, or the day's other hours (the edge is then the day minus those).
//
// Gives up (null) when the page is too deep, the range has too many buckets or the lists must be
// read too deep: the caller then builds the ranking as before.
import type { Queryable } from '../../../db/database.ts';
import { addMonths, DAY_SECONDS, floorToDay, HOUR_SECONDS } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import type { PathViewsRow } from './ranking-queries.ts';
import { pathSpanParams } from './span-params.ts';
import {
  selectListHeads,
  selectProbedViews,
  selectRangeBuckets,
  type ViewProbes,
} from './top-path-queries.ts';

/** Pages reaching further than this many rows are read from a ranking. */
export const TOP_PATHS_MAX_ROWS = 1000;
/** Ranges made of more lists than this are read from a ranking (e.g. years of unsealed days). */
export const TOP_PATHS_MAX_LISTS = 400;
/** Rows read from the lists' heads, all lists together, before giving up. */
const MAX_HEAD_ROWS = 400_000;
const FIRST_DEPTH = 64;

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/**
 * A day holding edge hours. Its list bounds the edge hours' views of a path (they are at most the
 * day's); their exact views are probed in the hourly rows, either directly (`hours`) or, when the
 * day's other hours are fewer, as the day's views minus those hours' (`complement`): a range
 * ending at the current hour then probes only the few hours of today already past its end, or none.
 * Hours without human or AI views (site-wide, traffic_hourly) are never probed: no path has any.
 */
export interface EdgeDay {
  day: number;
  /** The edge hours with views. */
  hours: number[];
  /** The day's other hours with views. */
  others: number[];
  complement: boolean;
}

interface RangeBuckets {
  /** Whole days with traffic, not inside a sealed month of the range. */
  days: number[];
  months: number[];
  edges: EdgeDay[];
  /** The lists to read: whole days, then the edge days; and sealed months. */
  listDays: number[];
  listMonths: number[];
}

/** Edge days from the range's edge hours and the hourly views of their days. */
export function edgeDays(edgeHours: readonly number[], hourViews: ReadonlyMap<number, number>): EdgeDay[] {
  const byDay = new Map<number, Set<number>>();
  for (const hour of edgeHours) {
    const day = floorToDay(hour);
    let set = byDay.get(day);
    if (set === undefined) {
      set = new Set();
      byDay.set(day, set);
    }
    set.add(hour);
  }
  const edges: EdgeDay[] = [];
  for (const [day, inEdge] of byDay) {
    const hours: number[] = [];
    const others: number[] = [];
    for (let h = day; h < day + DAY_SECONDS; h += HOUR_SECONDS) {
      if ((hourViews.get(h) ?? 0) > 0) (inEdge.has(h) ? hours : others).push(h);
    }
    // No views in the edge hours: no path has any there, and the day is not a list at all.
    if (hours.length > 0) edges.push({ day, hours, others, complement: others.length < hours.length });
  }
  return edges.sort((x, y) => x.day - y.day);
}

/** The range as whole sealed months, whole days (those with traffic) and edge days. */
async function rangeBuckets(db: Queryable, projectId: string, range: HourRange): Promise<RangeBuckets> {
  const split = splitRange(range, null);
  const edgeHours: number[] = [];
  for (const span of split.hours) {
    // Hour spans are always bounded (range-split.ts): under two days each.
    for (let h = span.from!; h < span.to!; h += HOUR_SECONDS) edgeHours.push(h);
  }
  const edgeDayStarts = [...new Set(edgeHours.map(floorToDay))];
  const days: number[] = [];
  const sealed: number[] = [];
  const hourViews = new Map<number, number>();
  for (const row of await selectRangeBuckets(
    db,
    projectId,
    pathSpanParams(split).slice(4, 8),
    edgeDayStarts.map(iso),
  )) {
    if (row.kind === 'd') days.push(row.start);
    else if (row.kind === 'm') sealed.push(row.start);
    else if (row.kind === 'h') hourViews.set(row.start, row.views);
  }
  // A sealed month lying whole inside the days is read as one list instead of its days.
  const months: number[] = [];
  const wholeDays: number[] = [];
  if (days.length > 0) {
    const inside = (from: number, to: number) =>
      split.days.some((s) => (s.from === null || s.from <= from) && (s.to === null || to <= s.to));
    const taken = new Set<number>();
    for (const month of sealed) {
      const end = addMonths(month, 1);
      if (!inside(month, end)) continue;
      months.push(month);
      for (let d = month; d < end; d += DAY_SECONDS) taken.add(d);
    }
    for (const day of days) if (!taken.has(day)) wholeDays.push(day);
  }
  const edges = edgeDays(edgeHours, hourViews);
  return {
    days: wholeDays,
    months: months.sort((a, b) => a - b),
    edges,
    listDays: [...wholeDays, ...edges.map((e) => e.day)],
    listMonths: months,
  };
}

/** Byte order of UTF-8, the export's tie-break (COLLATE "C"). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function exportOrder(a: PathViewsRow, b: PathViewsRow): number {
  return b.total - a.total || byteOrder(a.path, b.path);
}

interface Views {
  human: number;
  ai: number;
}

/**
 * What the lists' heads say of one path: human and ai, its views summed over the whole days and
 * months where it was read; lists, its views in each list where it was read, by list index (an
 * edge day's: the whole day's views).
 */
interface Seen extends Views {
  lists: Map<number, Views>;
}

/**
 * Rows [offset, offset + limit) of the range's ranking, exact, or null when this way would cost
 * more than building the ranking. Runs in the caller's snapshot (a REPEATABLE READ transaction).
 */
export async function selectTopPathsPage(
  db: Queryable,
  projectId: string,
  range: HourRange,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[] | null> {
  const k = page.offset + page.limit;
  const buckets = await rangeBuckets(db, projectId, range);
  const dayLists = buckets.listDays.length;
  const lists = dayLists + buckets.listMonths.length;
  if (lists > TOP_PATHS_MAX_LISTS) return null;
  if (lists === 0) return [];
  const listDays = buckets.listDays.map(iso);
  const listMonths = buckets.listMonths.map(iso);
  // Lists of whole days and months hold exact views; an edge day's list only bounds its hours'.
  const exactList = (j: number) => j >= dayLists || j < buckets.days.length;
  // Paths whose views over the range are known exactly (null: none in the range).
  const resolved = new Map<string, PathViewsRow | null>();
  for (let depth = Math.max(FIRST_DEPTH, 2 * k); ; depth *= 4) {
    const heads = await selectListHeads(db, projectId, listDays, listMonths, depth);
    const rows = new Array<number>(lists).fill(0);
    const last = new Array<number>(lists).fill(Number.POSITIVE_INFINITY);
    const seen = new Map<string, Seen>();
    for (const row of heads) {
      const j = row.level === 'd' ? row.bucket : dayLists + row.bucket;
      const total = row.human + row.ai;
      rows[j]!++;
      last[j] = Math.min(last[j]!, total);
      if (resolved.has(row.path)) continue;
      let entry = seen.get(row.path);
      if (entry === undefined) {
        entry = { human: 0, ai: 0, lists: new Map() };
        seen.set(row.path, entry);
      }
      entry.lists.set(j, { human: row.human, ai: row.ai });
      if (exactList(j)) {
        entry.human += row.human;
        entry.ai += row.ai;
      }
    }
    // A list read to its end bounds every path not read in it by 0: it has no views there.
    const exhausted = rows.map((n) => n < depth);
    const bound = last.map((value, j) => (exhausted[j] ? 0 : value));
    const threshold = bound.reduce((a, b) => a + b, 0);
    // Bounds of each path read but not resolved: what the heads showed, and at most that plus,
    // for each list not showing it, that list's last value.
    const open: { path: string; seen: Seen; lower: number; upper: number }[] = [];
    for (const [path, entry] of seen) {
      const lower = entry.human + entry.ai;
      let upper = lower;
      for (let j = 0; j < lists; j++) {
        const seenThere = entry.lists.get(j);
        const there = seenThere === undefined ? undefined : seenThere.human + seenThere.ai;
        if (!exactList(j)) upper += there ?? bound[j]!;
        else if (there === undefined) upper += bound[j]!;
      }
      open.push({ path, seen: entry, lower, upper });
    }
    // The k-th best lower bound: a path whose upper bound is below it cannot be in the page.
    const lows = [...open.map((o) => o.lower), ...[...resolved.values()].map((r) => r?.total ?? 0)];
    lows.sort((a, b) => b - a);
    const kthLower = lows.length >= k ? lows[k - 1]! : -1;
    const wanted = open.filter((o) => o.upper >= kthLower);
    await resolve(
      db,
      projectId,
      wanted,
      { buckets, listDays, listMonths, dayLists, exactList, exhausted },
      resolved,
    );
    const ranked = [...resolved.values()].filter((r): r is PathViewsRow => r !== null).sort(exportOrder);
    // All lists read to their end: every path with views was read. Otherwise the k-th must beat
    // any unseen path strictly (an unseen path equal to it could come first by name).
    if (exhausted.every(Boolean) || (ranked.length >= k && ranked[k - 1]!.total > threshold)) {
      return ranked.slice(page.offset, k);
    }
    if (depth * lists >= MAX_HEAD_ROWS) return null;
  }
}

/**
 * Sums the views the heads did not show of each path wanted, by index probes; adds them to
 * resolved. An edge day is probed only where the path may have views that day (it was read in the
 * day's list, or the list was not read to its end).
 */
async function resolve(
  db: Queryable,
  projectId: string,
  wanted: { path: string; seen: Seen }[],
  lists: {
    buckets: RangeBuckets;
    listDays: string[];
    listMonths: string[];
    dayLists: number;
    exactList: (j: number) => boolean;
    exhausted: boolean[];
  },
  resolved: Map<string, PathViewsRow | null>,
): Promise<void> {
  const probes: ViewProbes = {
    dayPaths: [],
    days: [],
    monthPaths: [],
    months: [],
    hourPaths: [],
    hours: [],
    hourSigns: [],
  };
  const hourProbes: { path: string; at: number; sign: number }[] = [];
  const hour = (path: string, at: number, sign: number) => hourProbes.push({ path, at, sign });
  const wholeDays = lists.buckets.days.length;
  const total = lists.listDays.length + lists.listMonths.length;
  // Views known without a probe: the whole edge days read in the heads, for those read as the day
  // minus its other hours.
  const known = new Map<string, Views>();
  for (const { path, seen } of wanted) {
    const sum = { human: seen.human, ai: seen.ai };
    for (let j = 0; j < total; j++) {
      const there = seen.lists.get(j);
      if (lists.exactList(j)) {
        if (there !== undefined || lists.exhausted[j]) continue;
        if (j < lists.dayLists) {
          probes.dayPaths.push(path);
          probes.days.push(lists.listDays[j]!);
        } else {
          probes.monthPaths.push(path);
          probes.months.push(lists.listMonths[j - lists.dayLists]!);
        }
        continue;
      }
      // An edge day: none of its views when its list, read to the end, did not show the path.
      if (there === undefined && lists.exhausted[j]) continue;
      const edge = lists.buckets.edges[j - wholeDays]!;
      if (!edge.complement) {
        for (const at of edge.hours) hour(path, at, 1);
        continue;
      }
      if (there !== undefined) {
        sum.human += there.human;
        sum.ai += there.ai;
      } else {
        probes.dayPaths.push(path);
        probes.days.push(lists.listDays[j]!);
      }
      for (const at of edge.others) hour(path, at, -1);
    }
    known.set(path, sum);
  }
  // Hour by hour, in the primary key's order: the probes of one hour read neighbouring index and
  // heap pages (an hour's rows are written together), which matters when they are not cached.
  hourProbes.sort((x, y) => x.at - y.at || byteOrder(x.path, y.path));
  for (const { path, at, sign } of hourProbes) {
    probes.hourPaths.push(path);
    probes.hours.push(iso(at));
    probes.hourSigns.push(sign);
  }
  const probed = new Map<string, Views>();
  if (probes.dayPaths.length + probes.monthPaths.length + probes.hourPaths.length > 0) {
    for (const row of await selectProbedViews(db, projectId, probes)) probed.set(row.path, row);
  }
  for (const { path } of wanted) {
    const base = known.get(path)!;
    const extra = probed.get(path);
    const human = base.human + (extra?.human ?? 0);
    const ai = base.ai + (extra?.ai ?? 0);
    resolved.set(path, human + ai > 0 ? { path, human, ai, total: human + ai } : null);
  }
}

// Writes page views: the hourly rollups (the truth), the levels above them (daily path totals,
// hourly and daily traffic and agent totals, monthly path totals of sealed months) and every live
// ranking that covers the hours written, all in one transaction. addViews (log import) and the
// staged-views merge (ingest) both end here, so all go through the same aggregation and upserts.
import type { Database, Queryable } from '../../../db/database.ts';
import { hourOf } from '../../../util/time.ts';
import type { KeyedCount } from './keyed-count.ts';
import { writeLevelsThenLock } from './level-writes.ts';
import { levelRowsOf } from './levels.ts';
import { writeUnderLock } from './locked-writes.ts';
import type { TrafficClass } from './queries.ts';

export interface PageViewCount {
  projectId: string;
  /** Any time within the hour; it is counted in the UTC hour that contains it. */
  hour: Date;
  /** The normalised page path. */
  path: string;
  trafficClass: TrafficClass;
  /** The AI agent or bot (e.g. "GPTBot"); '' or omitted for humans. */
  agent?: string;
  /** How the agent was verified (e.g. "ip", "signature", "claimed"); '' or omitted when not. */
  verification?: string;
  views: number;
}

export interface RecordResult {
  /** Distinct (project, hour, path, class, agent, verification) keys written. */
  keys: number;
  /** Views added, summed over all rows. */
  views: number;
}

const TRAFFIC_CLASSES: readonly TrafficClass[] = ['human', 'ai', 'bot'];

/**
 * Rows in one transaction: all counted, or none (a bad row fails the whole call). For benchmarks
 * that load traffic (bench/); the store's own callers add ViewSums (add-views.ts) or stage them.
 */
export async function recordPageViews(db: Database, rows: Iterable<PageViewCount>): Promise<RecordResult> {
  const counts = aggregate(rows);
  if (counts.length === 0) return { keys: 0, views: 0 };
  await db.transaction((tx) => upsertCounts(tx, counts));
  return { keys: counts.length, views: counts.reduce((sum, c) => sum + c.views, 0) };
}

/**
 * Every table in a fixed order (hourly, the levels, then sealed months and rankings under the
 * projects' shared lock), each table's keys sorted: concurrent writers then take row locks in one
 * global order and cannot deadlock.
 */
async function upsertCounts(tx: Queryable, counts: readonly KeyedCount[]): Promise<void> {
  if (counts.length === 0) return;
  const projectIds = [...new Set(counts.map((c) => c.projectId))];
  await writeLevelsThenLock(tx, counts, levelRowsOf(counts), projectIds);
  await writeUnderLock(tx, counts, projectIds);
}

/**
 * Sums counts that share a key and sorts them by key: concurrent writers then lock rows in the
 * same order and cannot deadlock. Every writer's key order must be this one.
 */
export class CountSums {
  readonly #byKey = new Map<string, KeyedCount>();

  /** Adds a checked count (its object may be kept and changed). Zero counts are left out. */
  add(count: KeyedCount): void {
    if (count.views === 0) return;
    // NUL cannot occur in any part (checked), so it separates them unambiguously.
    const key = `${count.projectId}\0${count.hour}\0${count.path}\0${count.trafficClass}\0${count.agent}\0${count.verification}`;
    const existing = this.#byKey.get(key);
    if (existing) {
      existing.views += count.views;
      if (!Number.isSafeInteger(existing.views))
        throw new RangeError(
          `page views: the count for ${JSON.stringify(key.split('\0'))} exceeds ${Number.MAX_SAFE_INTEGER}`,
        );
    } else this.#byKey.set(key, count);
  }

  sorted(): KeyedCount[] {
    return [...this.#byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, count]) => count);
  }
}

/**
 * Sums rows that share a key (a batch repeating a key would fail as a whole), drops zero counts,
 * and sorts by key (CountSums).
 */
export function aggregate(rows: Iterable<PageViewCount>): KeyedCount[] {
  const sums = new CountSums();
  const hours = new Map<number, { iso: string; seconds: number }>();
  let index = 0;
  for (const row of rows) sums.add(checked(row, index++, hours));
  return sums.sorted();
}

/**
 * Writes counts summed and sorted by CountSums, inside the caller's transaction, which must be
 * READ COMMITTED (the default; see locked-writes.ts).
 */
export async function recordSortedCountsIn(
  tx: Queryable,
  counts: readonly KeyedCount[],
): Promise<RecordResult> {
  await upsertCounts(tx, counts);
  return { keys: counts.length, views: counts.reduce((sum, c) => sum + c.views, 0) };
}

/** A string PostgreSQL can store as text: it refuses the NUL character. */
function isText(value: unknown): value is string {
  return typeof value === 'string' && !value.includes('\0');
}

// PostgreSQL reads ISO text timestamps only for years 0001-9999. (Date.UTC would read year 1 as
// 1901: setUTCFullYear takes it as written.)
const FIRST_MS = (() => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d.getTime();
})();
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * What is wrong with a row, or null when it can be stored. Shared by aggregate and by the
 * ingest staging (staged-views.ts), so a staged row can always be merged later.
 */
export function pageViewCountProblem(row: PageViewCount): string | null {
  if (!isText(row.projectId) || row.projectId === '') return 'projectId must be a non-empty string';
  if (!(row.hour instanceof Date) || Number.isNaN(row.hour.getTime())) return 'hour must be a valid Date';
  if (!isText(row.path) || row.path === '') return 'path must be a non-empty string';
  if (row.agent !== undefined && !isText(row.agent)) return 'agent must be a string';
  if (row.verification !== undefined && !isText(row.verification)) return 'verification must be a string';
  if (!TRAFFIC_CLASSES.includes(row.trafficClass)) return 'trafficClass must be human, ai or bot';
  if (!Number.isSafeInteger(row.views) || row.views < 0) return 'views must be a non-negative integer';
  const ms = row.hour.getTime();
  if (ms < FIRST_MS || ms > LAST_MS) return 'hour must be within the years 0001 to 9999';
  return null;
}

function checked(
  row: PageViewCount,
  index: number,
  hours: Map<number, { iso: string; seconds: number }>,
): KeyedCount {
  const problem = pageViewCountProblem(row);
  if (problem !== null) throw new TypeError(`page views row ${index}: ${problem}`);
  // A group holds thousands of rows but only a few distinct hours: each hour is turned into
  // text once (toISOString per row cost more than the rest of the check).
  const ms = row.hour.getTime();
  let hour = hours.get(ms);
  if (hour === undefined) {
    const start = new Date(hourOf(ms));
    hour = { iso: start.toISOString(), seconds: start.getTime() / 1000 };
    hours.set(ms, hour);
  }
  return {
    projectId: row.projectId,
    hour: hour.iso,
    hourSeconds: hour.seconds,
    path: row.path,
    trafficClass: row.trafficClass,
    agent: row.agent ?? '',
    verification: row.verification ?? '',
    views: row.views,
  };
}

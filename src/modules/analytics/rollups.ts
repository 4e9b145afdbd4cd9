// Writes page views: the hourly rollups (the truth), the levels above them (daily path totals,
// hourly and daily traffic and agent totals, monthly path totals of sealed months) and every live
// ranking that covers the hours written, all in one transaction. Used by ingestion, log import
// and tests that seed data, so all go through the same aggregation and upserts.
import type { Database, Queryable } from '../../db/database.ts';
import { writeLevelsThenLock } from './level-writes.ts';
import { levelRowsOf } from './levels.ts';
import { writeUnderLock } from './locked-writes.ts';
import type { TrafficClass } from './queries.ts';

export { UPSERT_BATCH_SIZE } from './level-writes.ts';

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

const HOUR_MS = 3_600_000;
const TRAFFIC_CLASSES: readonly TrafficClass[] = ['human', 'ai', 'bot'];

/** One distinct hourly key and its views, checked. */
export interface KeyedCount {
  projectId: string;
  /** ISO 8601 UTC, on the hour. */
  hour: string;
  /** The same hour in epoch seconds. */
  hourSeconds: number;
  path: string;
  trafficClass: TrafficClass;
  agent: string;
  verification: string;
  views: number;
}

/** Rows in one transaction: all counted, or none (a bad row fails the whole call). */
export async function recordPageViews(db: Database, rows: Iterable<PageViewCount>): Promise<RecordResult> {
  const counts = aggregate(rows);
  if (counts.length === 0) return { keys: 0, views: 0 };
  await db.transaction((tx) => upsertCounts(tx, counts));
  return { keys: counts.length, views: counts.reduce((sum, c) => sum + c.views, 0) };
}

/**
 * The same, inside a transaction the caller already holds (e.g. an ingestion group commit), which
 * must be READ COMMITTED (the default; see locked-writes.ts). Rows are aggregated first,
 * then written in batches of UPSERT_BATCH_SIZE.
 */
export async function recordPageViewsIn(tx: Queryable, rows: Iterable<PageViewCount>): Promise<RecordResult> {
  const counts = aggregate(rows);
  await upsertCounts(tx, counts);
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
 * Sums rows that share a key (a batch repeating a key would fail as a whole), drops zero counts,
 * and sorts by key: concurrent writers then lock rows in the same order and cannot deadlock.
 */
export function aggregate(rows: Iterable<PageViewCount>): KeyedCount[] {
  const byKey = new Map<string, KeyedCount>();
  // A group commit holds thousands of rows but only a few distinct hours: each hour is checked
  // and turned into text once (toISOString per row cost more than the rest of the check).
  const hours = new Map<number, HourBucket>();
  let index = 0;
  for (const row of rows) {
    const count = checked(row, index++, hours);
    if (count.views === 0) continue;
    // NUL cannot occur in any part (checked), so it separates them unambiguously.
    const key = `${count.projectId}\0${count.hour}\0${count.path}\0${count.trafficClass}\0${count.agent}\0${count.verification}`;
    const existing = byKey.get(key);
    if (existing) {
      existing.views += count.views;
      if (!Number.isSafeInteger(existing.views))
        throw new RangeError(
          `page views: the count for ${JSON.stringify(key.split('\0'))} exceeds ${Number.MAX_SAFE_INTEGER}`,
        );
    } else byKey.set(key, count);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, count]) => count);
}

/** A string PostgreSQL can store as text: it refuses the NUL character. */
function isText(value: unknown): value is string {
  return typeof value === 'string' && !value.includes('\0');
}

/** An hour as the writers need it, or what is wrong with it (checked where the row check says). */
type HourBucket = { iso: string; seconds: number } | { invalid: 'date' | 'year' };

function hourBucket(ms: number): HourBucket {
  if (Number.isNaN(ms)) return { invalid: 'date' };
  const hour = new Date(Math.floor(ms / HOUR_MS) * HOUR_MS);
  const year = hour.getUTCFullYear();
  // PostgreSQL reads ISO text timestamps only for years 0001-9999.
  if (year < 1 || year > 9999) return { invalid: 'year' };
  return { iso: hour.toISOString(), seconds: hour.getTime() / 1000 };
}

function checked(row: PageViewCount, index: number, hours: Map<number, HourBucket>): KeyedCount {
  const fail = (what: string) => new TypeError(`page views row ${index}: ${what}`);
  if (!isText(row.projectId) || row.projectId === '') throw fail('projectId must be a non-empty string');
  if (!(row.hour instanceof Date)) throw fail('hour must be a valid Date');
  const ms = row.hour.getTime();
  let hour = hours.get(ms);
  if (hour === undefined) {
    hour = hourBucket(ms);
    hours.set(ms, hour);
  }
  if ('invalid' in hour && hour.invalid === 'date') throw fail('hour must be a valid Date');
  if (!isText(row.path) || row.path === '') throw fail('path must be a non-empty string');
  if (row.agent !== undefined && !isText(row.agent)) throw fail('agent must be a string');
  if (row.verification !== undefined && !isText(row.verification))
    throw fail('verification must be a string');
  if (!TRAFFIC_CLASSES.includes(row.trafficClass)) throw fail('trafficClass must be human, ai or bot');
  if (!Number.isSafeInteger(row.views) || row.views < 0) throw fail('views must be a non-negative integer');
  if ('invalid' in hour) throw fail('hour must be within the years 0001 to 9999');
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

// SQL that writes page-view counts: the hourly truth (page_views_hourly) and the levels above it
// (migration 0004), one function per statement. Each takes batches of distinct keys as parallel
// arrays for unnest (a batch repeating a key would fail: ON CONFLICT cannot update a row twice in
// one statement). Runs on PostgreSQL 15+ and on PGlite alike. Reads are in report-queries.ts,
// the ranking cache in ranking-queries.ts.
import type { Queryable } from '../../../db/database.ts';

export type TrafficClass = 'human' | 'ai' | 'bot';

/** An hour range in epoch seconds, each bound on the hour; null = unbounded on that side. */
export interface HourRange {
  from: number | null;
  to: number | null;
}

/** One batch of distinct keys, as parallel arrays (one element per row) for unnest. */
export interface PageViewBatch {
  projectIds: string[];
  /** ISO 8601 UTC strings, each on the hour. */
  hours: string[];
  paths: string[];
  trafficClasses: TrafficClass[];
  agents: string[];
  verifications: string[];
  views: number[];
}

/** Per-path human and AI views in day or month buckets (ISO 8601 UTC bucket starts). */
export interface PathLevelBatch {
  projectIds: string[];
  buckets: string[];
  paths: string[];
  human: number[];
  ai: number[];
}

/** Site-wide views per bucket and traffic class. */
export interface TrafficBatch {
  projectIds: string[];
  buckets: string[];
  human: number[];
  ai: number[];
  bot: number[];
}

/** AI views per bucket, agent and verification. */
export interface AgentBatch {
  projectIds: string[];
  buckets: string[];
  agents: string[];
  verifications: string[];
  views: number[];
}

// Each upsert as SQL text whose parameters start at $p, so the same statement can run alone or
// as one step of the combined write below; `after` is a condition on the rows to insert (the
// combined write's ordering, see there).

const hourlyUpsert = (p: number, after = '') => `
  INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, agent, verification, views)
  SELECT * FROM unnest($${p}::text[], $${p + 1}::timestamptz[], $${p + 2}::text[], $${p + 3}::text[],
                       $${p + 4}::text[], $${p + 5}::text[], $${p + 6}::bigint[])${after}
  ON CONFLICT (project_id, hour, path, traffic_class, agent, verification)
  DO UPDATE SET views = page_views_hourly.views + EXCLUDED.views`;
const hourlyParams = (b: PageViewBatch) => [
  b.projectIds,
  b.hours,
  b.paths,
  b.trafficClasses,
  b.agents,
  b.verifications,
  b.views,
];

const pathLevelUpsert = (
  table: 'page_views_daily' | 'page_views_monthly',
  bucket: 'day' | 'month',
  p: number,
  after = '',
) => `
  INSERT INTO ${table} (project_id, ${bucket}, path, human, ai)
  SELECT * FROM unnest($${p}::text[], $${p + 1}::timestamptz[], $${p + 2}::text[], $${p + 3}::bigint[], $${p + 4}::bigint[])${after}
  ON CONFLICT (project_id, ${bucket}, path)
  DO UPDATE SET human = ${table}.human + EXCLUDED.human, ai = ${table}.ai + EXCLUDED.ai`;
const pathLevelParams = (b: PathLevelBatch) => [b.projectIds, b.buckets, b.paths, b.human, b.ai];

const trafficUpsert = (
  table: 'traffic_hourly' | 'traffic_daily',
  bucket: 'hour' | 'day',
  p: number,
  after = '',
) => `
  INSERT INTO ${table} (project_id, ${bucket}, human, ai, bot)
  SELECT * FROM unnest($${p}::text[], $${p + 1}::timestamptz[], $${p + 2}::bigint[], $${p + 3}::bigint[], $${p + 4}::bigint[])${after}
  ON CONFLICT (project_id, ${bucket})
  DO UPDATE SET human = ${table}.human + EXCLUDED.human, ai = ${table}.ai + EXCLUDED.ai, bot = ${table}.bot + EXCLUDED.bot`;
const trafficParams = (b: TrafficBatch) => [b.projectIds, b.buckets, b.human, b.ai, b.bot];

const agentUpsert = (
  table: 'agent_views_hourly' | 'agent_views_daily',
  bucket: 'hour' | 'day',
  p: number,
  after = '',
) => `
  INSERT INTO ${table} (project_id, ${bucket}, agent, verification, views)
  SELECT * FROM unnest($${p}::text[], $${p + 1}::timestamptz[], $${p + 2}::text[], $${p + 3}::text[], $${p + 4}::bigint[])${after}
  ON CONFLICT (project_id, ${bucket}, agent, verification)
  DO UPDATE SET views = ${table}.views + EXCLUDED.views`;
const agentParams = (b: AgentBatch) => [b.projectIds, b.buckets, b.agents, b.verifications, b.views];

/** Adds each row's views to its hourly count, creating the row when new. */
export async function upsertPageViewBatch(db: Queryable, batch: PageViewBatch): Promise<void> {
  await db.query(hourlyUpsert(1), hourlyParams(batch));
}

export async function upsertDailyPaths(db: Queryable, batch: PathLevelBatch): Promise<void> {
  await db.query(pathLevelUpsert('page_views_daily', 'day', 1), pathLevelParams(batch));
}

/** Monthly rows of sealed months only (see migration 0004). */
export async function upsertMonthlyPaths(db: Queryable, batch: PathLevelBatch): Promise<void> {
  await db.query(pathLevelUpsert('page_views_monthly', 'month', 1), pathLevelParams(batch));
}

export async function upsertTrafficHourly(db: Queryable, batch: TrafficBatch): Promise<void> {
  await db.query(trafficUpsert('traffic_hourly', 'hour', 1), trafficParams(batch));
}

export async function upsertTrafficDaily(db: Queryable, batch: TrafficBatch): Promise<void> {
  await db.query(trafficUpsert('traffic_daily', 'day', 1), trafficParams(batch));
}

export async function upsertAgentHourly(db: Queryable, batch: AgentBatch): Promise<void> {
  await db.query(agentUpsert('agent_views_hourly', 'hour', 1), agentParams(batch));
}

export async function upsertAgentDaily(db: Queryable, batch: AgentBatch): Promise<void> {
  await db.query(agentUpsert('agent_views_daily', 'day', 1), agentParams(batch));
}

export interface CombinedWrite {
  hourly: PageViewBatch;
  dailyPaths: PathLevelBatch;
  trafficHourly: TrafficBatch;
  trafficDaily: TrafficBatch;
  agentHourly: AgentBatch;
  agentDaily: AgentBatch;
}

const waitFor = (step: string) => `\n  WHERE (SELECT count(*) FROM ${step}) >= 0`;

/**
 * A small batch in one round trip: the hourly rows, then each level, in the same table order as
 * the one-statement-per-table path (so writers on either path lock rows in one global order),
 * and last the projects' shared ranking locks (ranking-queries.ts, lockProjectsForWriting).
 * Data-modifying CTEs otherwise run in an unspecified order; each step here waits for the one
 * before it through a scalar subquery over its RETURNING rows.
 */
export async function upsertLevelsThenLock(
  db: Queryable,
  write: CombinedWrite,
  lock: { lockClass: number; projectIds: readonly string[] },
): Promise<void> {
  await db.query(
    `WITH hourly AS (${hourlyUpsert(1)} RETURNING 1),
     daily_paths AS (${pathLevelUpsert('page_views_daily', 'day', 8, waitFor('hourly'))} RETURNING 1),
     traffic_h AS (${trafficUpsert('traffic_hourly', 'hour', 13, waitFor('daily_paths'))} RETURNING 1),
     traffic_d AS (${trafficUpsert('traffic_daily', 'day', 18, waitFor('traffic_h'))} RETURNING 1),
     agent_h AS (${agentUpsert('agent_views_hourly', 'hour', 23, waitFor('traffic_d'))} RETURNING 1),
     agent_d AS (${agentUpsert('agent_views_daily', 'day', 28, waitFor('agent_h'))} RETURNING 1)
     SELECT pg_advisory_xact_lock_shared($33, k)
       FROM (SELECT DISTINCT hashtext(p) AS k FROM unnest($34::text[]) AS p ORDER BY k) AS keys
      WHERE (SELECT count(*) FROM agent_d) >= 0`,
    [
      ...hourlyParams(write.hourly),
      ...pathLevelParams(write.dailyPaths),
      ...trafficParams(write.trafficHourly),
      ...trafficParams(write.trafficDaily),
      ...agentParams(write.agentHourly),
      ...agentParams(write.agentDaily),
      lock.lockClass,
      lock.projectIds,
    ],
  );
}

// SQL that writes page-view counts: the hourly truth (page_views_hourly) and the levels above it
// (migration 0004), one function per statement. Each takes a batch of distinct keys as parallel
// arrays for unnest (a batch repeating a key would fail: ON CONFLICT cannot update a row twice in
// one statement). Runs on PostgreSQL 15+ and on PGlite alike. Reads are in report-queries.ts,
// the ranking cache in ranking-queries.ts.
import type { Queryable } from '../../db/database.ts';

export type TrafficClass = 'human' | 'ai' | 'bot';

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

/**
 * Adds each row's views to its hourly count, creating the row when new. The batch must not
 * repeat a key: ON CONFLICT cannot update the same row twice in one statement.
 */
export async function upsertPageViewBatch(db: Queryable, batch: PageViewBatch): Promise<void> {
  await db.query(
    `INSERT INTO page_views_hourly (project_id, hour, path, traffic_class, agent, verification, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (project_id, hour, path, traffic_class, agent, verification)
     DO UPDATE SET views = page_views_hourly.views + EXCLUDED.views`,
    [
      batch.projectIds,
      batch.hours,
      batch.paths,
      batch.trafficClasses,
      batch.agents,
      batch.verifications,
      batch.views,
    ],
  );
}

/** An hour range in epoch seconds, each bound on the hour; null = unbounded on that side. */
export interface HourRange {
  from: number | null;
  to: number | null;
}

/** Per-path human and AI views in day or month buckets (ISO 8601 UTC bucket starts). */
export interface PathLevelBatch {
  projectIds: string[];
  buckets: string[];
  paths: string[];
  human: number[];
  ai: number[];
}

export async function upsertDailyPaths(db: Queryable, batch: PathLevelBatch): Promise<void> {
  await db.query(
    `INSERT INTO page_views_daily (project_id, day, path, human, ai)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::bigint[], $5::bigint[])
     ON CONFLICT (project_id, day, path)
     DO UPDATE SET human = page_views_daily.human + EXCLUDED.human, ai = page_views_daily.ai + EXCLUDED.ai`,
    [batch.projectIds, batch.buckets, batch.paths, batch.human, batch.ai],
  );
}

export async function upsertMonthlyPaths(db: Queryable, batch: PathLevelBatch): Promise<void> {
  await db.query(
    `INSERT INTO page_views_monthly (project_id, month, path, human, ai)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::bigint[], $5::bigint[])
     ON CONFLICT (project_id, month, path)
     DO UPDATE SET human = page_views_monthly.human + EXCLUDED.human, ai = page_views_monthly.ai + EXCLUDED.ai`,
    [batch.projectIds, batch.buckets, batch.paths, batch.human, batch.ai],
  );
}

/** Site-wide views per bucket and traffic class. */
export interface TrafficBatch {
  projectIds: string[];
  buckets: string[];
  human: number[];
  ai: number[];
  bot: number[];
}

export async function upsertTrafficHourly(db: Queryable, batch: TrafficBatch): Promise<void> {
  await db.query(
    `INSERT INTO traffic_hourly (project_id, hour, human, ai, bot)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (project_id, hour)
     DO UPDATE SET human = traffic_hourly.human + EXCLUDED.human, ai = traffic_hourly.ai + EXCLUDED.ai,
                   bot = traffic_hourly.bot + EXCLUDED.bot`,
    [batch.projectIds, batch.buckets, batch.human, batch.ai, batch.bot],
  );
}

export async function upsertTrafficDaily(db: Queryable, batch: TrafficBatch): Promise<void> {
  await db.query(
    `INSERT INTO traffic_daily (project_id, day, human, ai, bot)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (project_id, day)
     DO UPDATE SET human = traffic_daily.human + EXCLUDED.human, ai = traffic_daily.ai + EXCLUDED.ai,
                   bot = traffic_daily.bot + EXCLUDED.bot`,
    [batch.projectIds, batch.buckets, batch.human, batch.ai, batch.bot],
  );
}

/** AI views per bucket, agent and verification. */
export interface AgentBatch {
  projectIds: string[];
  buckets: string[];
  agents: string[];
  verifications: string[];
  views: number[];
}

export async function upsertAgentHourly(db: Queryable, batch: AgentBatch): Promise<void> {
  await db.query(
    `INSERT INTO agent_views_hourly (project_id, hour, agent, verification, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (project_id, hour, agent, verification)
     DO UPDATE SET views = agent_views_hourly.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.agents, batch.verifications, batch.views],
  );
}

export async function upsertAgentDaily(db: Queryable, batch: AgentBatch): Promise<void> {
  await db.query(
    `INSERT INTO agent_views_daily (project_id, day, agent, verification, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (project_id, day, agent, verification)
     DO UPDATE SET views = agent_views_daily.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.agents, batch.verifications, batch.views],
  );
}

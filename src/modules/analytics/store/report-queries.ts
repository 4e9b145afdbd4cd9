// SQL that reads the exports from the levels (migration 0004), one function per statement. Ranges
// arrive as the parameter slots of span-params.ts: edge hours from the hourly tables, whole days
// (and months) from the coarser ones.
import type { Queryable } from '../../../db/database.ts';
import { type PathViewsRow, pathViewsInSpans } from './ranking-queries.ts';
import { inSpans } from './span-params.ts';

type SpanParams = readonly (number | null)[];

/**
 * Makes the statements that follow in this transaction read one snapshot, so the totals and the
 * page of one export agree even while views are being ingested. Must be the first statement.
 */
export async function beginSnapshotRead(tx: Queryable): Promise<void> {
  await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
}

export interface TrafficTotalsRow {
  human: number;
  ai: number;
  bot: number;
}

/** Site-wide views by class over a range; params: the 6 slots of hourDaySpanParams. */
export async function selectTrafficTotals(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
): Promise<TrafficTotalsRow> {
  const rows = await db.query<TrafficTotalsRow>(
    `SELECT coalesce(sum(human), 0)::bigint AS human, coalesce(sum(ai), 0)::bigint AS ai,
            coalesce(sum(bot), 0)::bigint AS bot
       FROM (SELECT human, ai, bot FROM traffic_hourly WHERE project_id = $1 AND ${inSpans('hour', 2, 2)}
             UNION ALL
             SELECT human, ai, bot FROM traffic_daily WHERE project_id = $1 AND ${inSpans('day', 6, 1)}) AS t`,
    [projectId, ...spans],
  );
  return rows[0]!;
}

/**
 * One page of paths in the export's order, aggregated from the levels on the spot: the fallback
 * when no ranking can be used. Params: the 10 slots of pathSpanParams.
 */
export async function selectPathViewsPageFromLevels(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[]> {
  return db.query<PathViewsRow>(
    `SELECT path, sum(human)::bigint AS human, sum(ai)::bigint AS ai, sum(human + ai)::bigint AS total
       FROM (${pathViewsInSpans(1)}) AS v
      GROUP BY path
     HAVING sum(human + ai) > 0
      ORDER BY total DESC, path COLLATE "C"
      LIMIT $12 OFFSET $13`,
    [projectId, ...spans, page.limit, page.offset],
  );
}

const AGENT_VIEWS_IN_SPANS = `
  SELECT agent, verification, views FROM agent_views_hourly
   WHERE project_id = $1 AND ${inSpans('hour', 2, 2)}
  UNION ALL
  SELECT agent, verification, views FROM agent_views_daily
   WHERE project_id = $1 AND ${inSpans('day', 6, 1)}`;

export interface AgentViewsRow {
  agent: string;
  verified: number;
  unverified: number;
  total: number;
}

/** AI views by verification over every agent; params: the 6 slots of hourDaySpanParams. */
export async function selectAgentTotals(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
): Promise<Omit<AgentViewsRow, 'agent'>> {
  const rows = await db.query<Omit<AgentViewsRow, 'agent'>>(
    `SELECT coalesce(sum(views) FILTER (WHERE verification = 'verified'), 0)::bigint AS verified,
            coalesce(sum(views) FILTER (WHERE verification <> 'verified'), 0)::bigint AS unverified,
            coalesce(sum(views), 0)::bigint AS total
       FROM (${AGENT_VIEWS_IN_SPANS}) AS a`,
    [projectId, ...spans],
  );
  return rows[0]!;
}

/** One page of AI agents by total descending, then agent name in byte order. */
export async function selectAgentsPage(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
  page: { limit: number; offset: number },
): Promise<AgentViewsRow[]> {
  return db.query<AgentViewsRow>(
    `SELECT agent,
            coalesce(sum(views) FILTER (WHERE verification = 'verified'), 0)::bigint AS verified,
            coalesce(sum(views) FILTER (WHERE verification <> 'verified'), 0)::bigint AS unverified,
            sum(views)::bigint AS total
       FROM (${AGENT_VIEWS_IN_SPANS}) AS a
      GROUP BY agent
     HAVING sum(views) > 0
      ORDER BY total DESC, agent COLLATE "C"
      LIMIT $8 OFFSET $9`,
    [projectId, ...spans, page.limit, page.offset],
  );
}

export interface TrafficBucketRow {
  /** Bucket start, epoch seconds. */
  start: number;
  human: number;
  ai: number;
  bot: number;
}

/** The hours of [from, to) that have views, in order (empty hours are not stored). */
export async function selectHourlyTraffic(
  db: Queryable,
  projectId: string,
  from: number,
  to: number,
): Promise<TrafficBucketRow[]> {
  return db.query<TrafficBucketRow>(
    `SELECT extract(epoch FROM hour)::double precision AS start, human, ai, bot
       FROM traffic_hourly
      WHERE project_id = $1 AND hour >= to_timestamp($2::double precision) AND hour < to_timestamp($3::double precision)
      ORDER BY hour`,
    [projectId, from, to],
  );
}

/** The days of [from, to) that have views, in order; both bounds on UTC midnight. */
export async function selectDailyTraffic(
  db: Queryable,
  projectId: string,
  from: number,
  to: number,
): Promise<TrafficBucketRow[]> {
  return db.query<TrafficBucketRow>(
    `SELECT extract(epoch FROM day)::double precision AS start, human, ai, bot
       FROM traffic_daily
      WHERE project_id = $1 AND day >= to_timestamp($2::double precision) AND day < to_timestamp($3::double precision)
      ORDER BY day`,
    [projectId, from, to],
  );
}

/** The first and last hour with any views (epoch seconds), or nulls when there are none. */
export async function selectTrafficExtent(
  db: Queryable,
  projectId: string,
): Promise<{ first: number | null; last: number | null }> {
  const rows = await db.query<{ first: number | null; last: number | null }>(
    `SELECT extract(epoch FROM min(hour))::double precision AS first,
            extract(epoch FROM max(hour))::double precision AS last
       FROM traffic_hourly
      WHERE project_id = $1`,
    [projectId],
  );
  return rows[0]!;
}

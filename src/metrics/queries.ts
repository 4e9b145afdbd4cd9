// SQL read at scrape time by the database gauges (database-gauges.ts says how often). The queue
// reads only active jobs, through the partial index jobs_active_queue; the status count is one
// aggregate over all jobs, which grows with the table (docs/deployment.md, "Metrics").
import type { Queryable } from '../db/database.ts';

export async function countJobsByStatus(db: Queryable): Promise<{ status: string; jobs: number }[]> {
  return db.query('SELECT status, count(*)::bigint AS jobs FROM jobs GROUP BY status');
}

export interface StagedViewsRow {
  /** Page views acknowledged by ingestion and not merged into the rollups yet. */
  views: number;
  /** Seconds since the oldest of them was staged (null when none waits). */
  oldest_seconds: number | null;
}

/** page_views_staged holds one to ten seconds of ingest (one row per group commit) when the merger keeps up: a small scan. */
export async function selectStagedViews(db: Queryable): Promise<StagedViewsRow> {
  const rows = await db.query<StagedViewsRow>(
    `SELECT coalesce(sum(views), 0)::bigint AS views,
            extract(epoch FROM now() - min(created_at))::float8 AS oldest_seconds
       FROM page_views_staged`,
  );
  return rows[0]!;
}

export interface QueueRow {
  /** Active jobs nobody holds: never claimed, handed back, or whose holder's lease ran out. */
  waiting: number;
  /** Active jobs a worker holds under a live lease. */
  running: number;
  /** Seconds the longest-waiting of them has waited (since queued, or since its lease ran out). */
  oldest_waiting_seconds: number | null;
}

export async function selectJobQueue(db: Queryable): Promise<QueueRow> {
  const rows = await db.query<QueueRow>(
    `SELECT count(*) FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now())::bigint AS waiting,
            count(*) FILTER (WHERE lease_expires_at >= now())::bigint AS running,
            extract(epoch FROM now() - min(coalesce(lease_expires_at, updated_at))
              FILTER (WHERE lease_expires_at IS NULL OR lease_expires_at < now()))::float8 AS oldest_waiting_seconds
       FROM jobs
      WHERE status = 'active'`,
  );
  return rows[0]!;
}

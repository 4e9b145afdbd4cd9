// SQL for the hourly page-view rollups (page_views_hourly), one function per statement. Runs on
// PostgreSQL 15+ and on PGlite alike.
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

/**
 * Makes the statements that follow in this transaction read one snapshot, so the totals and the
 * page of one export agree even while views are being ingested. Must be the first statement.
 */
export async function beginSnapshotRead(tx: Queryable): Promise<void> {
  await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
}

/** An hour range in epoch seconds, each bound on the hour; null = unbounded on that side. */
export interface HourRange {
  from: number | null;
  to: number | null;
}

// Both queries filter on (project_id, hour), the primary key's prefix, so they scan only the
// range asked for. Bounds travel as epoch seconds: to_timestamp takes any year, where a text
// timestamp outside 0001-9999 would be refused by the parser.
const IN_RANGE = `project_id = $1
   AND hour >= coalesce(to_timestamp($2::double precision), '-infinity')
   AND hour < coalesce(to_timestamp($3::double precision), 'infinity')`;

export interface ViewTotalsRow {
  human: number;
  ai: number;
}

/** Human and AI views of every path in the range; non-AI bots are in neither. */
export async function selectViewTotals(
  db: Queryable,
  projectId: string,
  range: HourRange,
): Promise<ViewTotalsRow> {
  const rows = await db.query<ViewTotalsRow>(
    `SELECT coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
            coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai
       FROM page_views_hourly
      WHERE ${IN_RANGE}`,
    [projectId, range.from, range.to],
  );
  return rows[0]!;
}

export interface PathViewsRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

/**
 * One page of paths by total (human + ai) descending, then path ascending in byte order
 * (COLLATE "C", so the order is the same on every server whatever its default collation).
 * Paths with only non-AI bot views are not listed.
 */
export async function selectPathViewsPage(
  db: Queryable,
  projectId: string,
  range: HourRange,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[]> {
  return db.query<PathViewsRow>(
    `SELECT path,
            coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0)::bigint AS human,
            coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)::bigint AS ai,
            sum(views)::bigint AS total
       FROM page_views_hourly
      WHERE ${IN_RANGE}
        AND traffic_class IN ('human', 'ai')
      GROUP BY path
     HAVING sum(views) > 0
      ORDER BY total DESC, path COLLATE "C" ASC
      LIMIT $4 OFFSET $5`,
    [projectId, range.from, range.to, page.limit, page.offset],
  );
}

// SQL for the top of a range's path ranking without a ranking (top-paths.ts): the buckets a range
// is read from, the head of each bucket in its order of views (migration 0026's indexes), and the
// exact views of chosen paths over the range. One function per statement. Buckets and hours go as
// arrays of ISO 8601 instants, so `bucket = ANY(...) AND path = ANY(...)` is planned as index
// probes on the primary keys (one per bucket and path) instead of a range scan of every path.
import type { Queryable } from '../../../db/database.ts';
import { inSpans } from './span-params.ts';

/** The days with any traffic inside two day spans ($2..$5 as in inSpans), epoch seconds, in order. */
export async function selectTrafficDays(
  db: Queryable,
  projectId: string,
  daySpans: readonly (number | null)[],
): Promise<number[]> {
  const rows = await db.query<{ day: number }>(
    `SELECT extract(epoch FROM day)::double precision AS day FROM traffic_daily
      WHERE project_id = $1 AND ${inSpans('day', 2, 2)} ORDER BY day`,
    [projectId, ...daySpans],
  );
  return rows.map((r) => r.day);
}

/** The project's sealed months (epoch seconds of their starts). */
export async function selectSealedMonths(db: Queryable, projectId: string): Promise<number[]> {
  const rows = await db.query<{ month: number }>(
    `SELECT extract(epoch FROM month)::double precision AS month FROM page_view_sealed_months
      WHERE project_id = $1`,
    [projectId],
  );
  return rows.map((r) => r.month);
}

export interface ListHeadRow {
  /** 'd' a daily bucket, 'm' a monthly one. */
  level: 'd' | 'm';
  /** The bucket's index in the days or months array given. */
  bucket: number;
  path: string;
  human: number;
  ai: number;
}

/** The first `depth` paths of each bucket by views (human + ai) descending. */
export async function selectListHeads(
  db: Queryable,
  projectId: string,
  days: readonly string[],
  months: readonly string[],
  depth: number,
): Promise<ListHeadRow[]> {
  // Each bucket must be read in index order and stop after `depth` rows. Right after a month is
  // sealed its rows have no statistics yet, and the planner, expecting a handful, would fetch all
  // of them and sort (100 ms per month at 2 million events): forbid that for this statement.
  await db.query(
    `SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`,
  );
  const rows = await db.query<ListHeadRow>(
    `SELECT 'd' AS level, (b.i - 1)::int AS bucket, r.path, r.human, r.ai
       FROM unnest($2::timestamptz[]) WITH ORDINALITY AS b (bucket, i)
       CROSS JOIN LATERAL (
         SELECT path, human, ai FROM page_views_daily
          WHERE project_id = $1 AND day = b.bucket
          ORDER BY human + ai DESC LIMIT $4) AS r
     UNION ALL
     SELECT 'm', (b.i - 1)::int, r.path, r.human, r.ai
       FROM unnest($3::timestamptz[]) WITH ORDINALITY AS b (bucket, i)
       CROSS JOIN LATERAL (
         SELECT path, human, ai FROM page_views_monthly
          WHERE project_id = $1 AND month = b.bucket
          ORDER BY human + ai DESC LIMIT $4) AS r`,
    [projectId, days, months, depth],
  );
  await db.query(`SELECT set_config('enable_bitmapscan', 'on', true), set_config('enable_sort', 'on', true)`);
  return rows;
}

/** Views of (path, bucket) pairs in a level, and of paths in single hours, each key probed in its index. */
export interface ViewProbes {
  dayPaths: string[];
  days: string[];
  monthPaths: string[];
  months: string[];
  /** Every one of hourPaths in every one of hours. */
  hourPaths: string[];
  hours: string[];
}

/** Human and AI views per path found by the probes, summed. */
export async function selectProbedViews(
  db: Queryable,
  projectId: string,
  probes: ViewProbes,
): Promise<{ path: string; human: number; ai: number }[]> {
  return db.query(
    `SELECT path, sum(human)::bigint AS human, sum(ai)::bigint AS ai
       FROM (SELECT d.path, d.human, d.ai
               FROM unnest($2::text[], $3::timestamptz[]) AS q (path, day)
               JOIN page_views_daily d ON d.project_id = $1 AND d.day = q.day AND d.path = q.path
             UNION ALL
             SELECT m.path, m.human, m.ai
               FROM unnest($4::text[], $5::timestamptz[]) AS q (path, month)
               JOIN page_views_monthly m ON m.project_id = $1 AND m.month = q.month AND m.path = q.path
             UNION ALL
             SELECT path,
                    CASE WHEN traffic_class = 'human' THEN views ELSE 0 END,
                    CASE WHEN traffic_class = 'ai' THEN views ELSE 0 END
               FROM page_views_hourly
              WHERE project_id = $1 AND hour = ANY($7::timestamptz[]) AND path = ANY($6::text[])
                AND traffic_class IN ('human', 'ai')) AS v
      GROUP BY path`,
    [
      projectId,
      probes.dayPaths,
      probes.days,
      probes.monthPaths,
      probes.months,
      probes.hourPaths,
      probes.hours,
    ],
  );
}

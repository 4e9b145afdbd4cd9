// SQL for the top of a range's path ranking without a ranking (top-paths.ts): the buckets a range
// is read from, the head of each bucket in its order of views (migration 0026's indexes), and the
// exact views of chosen paths over the range. One function per statement. Buckets and hours go as
// arrays of ISO 8601 instants paired with paths, so `unnest(...) JOIN level ON key = pair` is
// planned as index probes on the primary keys (one per pair) instead of a range scan of every path.
import type { Queryable } from '../../../db/database.ts';
import { inSpans } from './span-params.ts';

export interface RangeBucketRow {
  /**
   * 'd' a day with traffic inside the day spans, 'm' a sealed month, 'h' an hour of an edge day;
   * 'c' the one row of the planner settings (no bucket).
   */
  kind: 'c' | 'd' | 'm' | 'h';
  /** Start of the bucket, epoch seconds. */
  start: number;
  /** Human and AI views of the hour, site-wide ('h' only; 0 otherwise). */
  views: number;
}

/**
 * In one statement: the days with any traffic inside two day spans ($2..$5 as in inSpans), the
 * project's sealed months, and the human and AI views of every hour of the days given in $6 (the
 * days holding edge hours), each kind in time order. It also turns bitmap scans and sorts off for
 * the rest of the transaction, for the heads read next (see selectListHeads): set here, it costs no
 * round trip of its own. The planner settings are transaction-local; the statements after it in
 * the transaction (list heads, probes) are planned as index scans and hash aggregates anyway.
 */
export async function selectRangeBuckets(
  db: Queryable,
  projectId: string,
  daySpans: readonly (number | null)[],
  edgeDays: readonly string[],
): Promise<RangeBucketRow[]> {
  return db.query<RangeBucketRow>(
    `SELECT 'd' AS kind, extract(epoch FROM day)::double precision AS start, 0::bigint AS views
       FROM traffic_daily
      WHERE project_id = $1 AND ${inSpans('day', 2, 2)}
     UNION ALL
     SELECT 'm', extract(epoch FROM month)::double precision, 0 FROM page_view_sealed_months
      WHERE project_id = $1
     UNION ALL
     SELECT 'h', extract(epoch FROM t.hour)::double precision, t.human + t.ai
       FROM unnest($6::timestamptz[]) AS e (day)
       JOIN traffic_hourly t ON t.project_id = $1 AND t.hour >= e.day AND t.hour < e.day + interval '1 day'
     UNION ALL
     SELECT 'c', 0,
            0 * length(set_config('enable_bitmapscan', 'off', true) || set_config('enable_sort', 'off', true))
     ORDER BY kind, start`,
    [projectId, ...daySpans, edgeDays],
  );
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
  // of them and sort (100 ms per month at 2 million events): selectRangeBuckets, run first in the
  // same transaction, forbids bitmap scans and sorts.
  return db.query<ListHeadRow>(
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
}

/**
 * Views of (path, bucket) pairs in a level, each pair probed in its primary key. Hour pairs carry a
 * sign: +1 adds the hour's views, -1 subtracts them (an edge day read as its day minus the day's
 * other hours, top-paths.ts).
 */
export interface ViewProbes {
  dayPaths: string[];
  days: string[];
  monthPaths: string[];
  months: string[];
  hourPaths: string[];
  hours: string[];
  hourSigns: number[];
}

/** Human and AI views per path found by the probes, summed with their signs. */
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
             SELECT h.path,
                    CASE WHEN h.traffic_class = 'human' THEN q.sign * h.views ELSE 0 END,
                    CASE WHEN h.traffic_class = 'ai' THEN q.sign * h.views ELSE 0 END
               FROM unnest($6::text[], $7::timestamptz[], $8::int[]) AS q (path, hour, sign)
               JOIN page_views_hourly h ON h.project_id = $1 AND h.hour = q.hour AND h.path = q.path
                AND h.traffic_class IN ('human', 'ai')) AS v
      GROUP BY path`,
    [
      projectId,
      probes.dayPaths,
      probes.days,
      probes.monthPaths,
      probes.months,
      probes.hourPaths,
      probes.hours,
      probes.hourSigns,
    ],
  );
}

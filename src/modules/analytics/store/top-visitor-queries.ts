// SQL for the top of a range's visitor ranking without ranking every page (top-visitors.ts): the
// extent of the daily sketches, the head of each daily and monthly bucket by bound (migration
// 0027's index), and the sketches of chosen pages over the range; plus the backfill of bounds
// for rows written before 0027. One function per statement. Buckets go as arrays of ISO 8601
// instants, so `bucket = ANY(...) AND path = ANY(...)` is planned as probes on the primary key.
import type { Queryable } from '../../../db/database.ts';
import type { SketchRow } from './visitor-queries.ts';

/** The first and last daily buckets with visitors (epoch seconds); null when none. */
export async function selectSketchDayExtent(
  db: Queryable,
  projectId: string,
): Promise<{ first: number; last: number } | null> {
  const rows = await db.query<{ first: number | null; last: number | null }>(
    `SELECT extract(epoch FROM min(bucket))::double precision AS first,
            extract(epoch FROM max(bucket))::double precision AS last
       FROM visitor_sketches WHERE project_id = $1 AND level = 'd'`,
    [projectId],
  );
  const row = rows[0];
  return row?.first == null || row.last == null ? null : { first: row.first, last: row.last };
}

export interface BoundHeadRow {
  /** 'd' a daily bucket, 'm' a monthly one. */
  level: 'd' | 'm';
  /** The bucket's index in the days or months array given. */
  bucket: number;
  path: string;
  /** null: written before migration 0027 and not counted yet. */
  bound: number | null;
}

/** The first `depth` pages of each bucket by bound descending (rows without a bound first). */
export async function selectBoundHeads(
  db: Queryable,
  projectId: string,
  days: readonly string[],
  months: readonly string[],
  depth: number,
): Promise<BoundHeadRow[]> {
  // Each bucket must be read in index order and stop after `depth` rows (as selectListHeads in
  // top-path-queries.ts: fresh rows without statistics would otherwise be fetched whole and sorted).
  await db.query(
    `SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`,
  );
  const rows = await db.query<BoundHeadRow>(
    `SELECT 'd' AS level, (b.i - 1)::int AS bucket, r.path, r.bound::double precision AS bound
       FROM unnest($2::timestamptz[]) WITH ORDINALITY AS b (bucket, i)
       CROSS JOIN LATERAL (
         SELECT path, bound FROM visitor_sketches
          WHERE project_id = $1 AND level = 'd' AND bucket = b.bucket AND level <> 'h' AND path <> ''
          ORDER BY bound DESC LIMIT $4) AS r
     UNION ALL
     SELECT 'm', (b.i - 1)::int, r.path, r.bound::double precision
       FROM unnest($3::timestamptz[]) WITH ORDINALITY AS b (bucket, i)
       CROSS JOIN LATERAL (
         SELECT path, bound FROM visitor_sketches
          WHERE project_id = $1 AND level = 'm' AND bucket = b.bucket AND level <> 'h' AND path <> ''
          ORDER BY bound DESC LIMIT $4) AS r`,
    [projectId, days, months, depth],
  );
  await db.query(`SELECT set_config('enable_bitmapscan', 'on', true), set_config('enable_sort', 'on', true)`);
  return rows;
}

/** Sketch rows to read, one (level, bucket, path) key each; buckets are ISO 8601 UTC. */
export interface SketchProbes {
  levels: ('h' | 'd' | 'm')[];
  buckets: string[];
  paths: string[];
}

/**
 * The stored rows of the given keys, each found by a probe of the primary key (whatever the
 * planner believes of the table's size: a scan of a level would read every page's rows).
 */
export async function selectProbedSketches(
  db: Queryable,
  projectId: string,
  probes: SketchProbes,
): Promise<SketchRow[]> {
  return db.query<SketchRow>(
    `SELECT s.path, s.human, s.ai
       FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS k (level, bucket, path)
       JOIN visitor_sketches s
         ON s.project_id = $1 AND s.level = k.level::"char" AND s.bucket = k.bucket AND s.path = k.path`,
    [projectId, probes.levels, probes.buckets, probes.paths],
  );
}

export interface UnboundedRow {
  project_id: string;
  level: 'd' | 'm';
  bucket: Date;
  path: string;
  human: Uint8Array | null;
  ai: Uint8Array | null;
}

/** True when a daily or monthly row has no bound yet (the cheap check before a backfill). */
export async function selectAnyUnboundedSketch(db: Queryable): Promise<boolean> {
  const rows = await db.query("SELECT 1 FROM visitor_sketches WHERE bound IS NULL AND level <> 'h' LIMIT 1");
  return rows.length > 0;
}

/** Up to `limit` daily or monthly rows without a bound (written before migration 0027), locked. */
export async function selectUnboundedSketches(tx: Queryable, limit: number): Promise<UnboundedRow[]> {
  return tx.query<UnboundedRow>(
    `SELECT project_id, level::text AS level, bucket, path, human, ai FROM visitor_sketches
      WHERE bound IS NULL AND level <> 'h'
      LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
}

/** Stores the bounds of rows read by selectUnboundedSketches. */
export async function updateSketchBounds(
  tx: Queryable,
  rows: { projectIds: string[]; levels: string[]; buckets: Date[]; paths: string[]; bounds: number[] },
): Promise<void> {
  await tx.query(
    `UPDATE visitor_sketches s SET bound = r.bound
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bigint[])
         AS r(project_id, level, bucket, path, bound)
      WHERE s.project_id = r.project_id AND s.level = r.level::"char" AND s.bucket = r.bucket AND s.path = r.path`,
    [rows.projectIds, rows.levels, rows.buckets, rows.paths, rows.bounds],
  );
}

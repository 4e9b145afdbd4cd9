// SQL for the ranking cache (page_view_rankings, page_view_ranking_rows; see migration 0004 and
// rankings.ts for the protocol), one function per statement.
import type { Queryable } from '../../../db/database.ts';
import type { HourRange } from './queries.ts';
import { inSpans } from './span-params.ts';

// Advisory locks in the two-key space, first key fixed ("rank" in ASCII), second the project's
// hash: writers take it shared, a builder exclusive. Projects whose hashes collide merely wait
// for each other.
export const RANKING_LOCK_CLASS = 0x72616e6b;

/**
 * Writers: a shared lock per project, taken in lock-key order so that writers of several
 * projects and builders queued between them can never wait on each other in a circle. (Small
 * batches take it at the end of their combined write instead: queries.ts, upsertLevelsThenLock.)
 */
export async function lockProjectsForWriting(db: Queryable, projectIds: readonly string[]): Promise<void> {
  await db.query(
    `SELECT pg_advisory_xact_lock_shared($1, k)
       FROM (SELECT DISTINCT hashtext(p) AS k FROM unnest($2::text[]) AS p ORDER BY k) AS keys`,
    [RANKING_LOCK_CLASS, projectIds],
  );
}

/**
 * Builders: the project's lock, exclusive, waiting at most timeoutMs (then error 55P03). Must
 * come before the statements that read the levels, so they see every writer that finished.
 */
export async function lockProjectForBuilding(
  db: Queryable,
  projectId: string,
  timeoutMs: number,
): Promise<void> {
  await db.query(`SELECT set_config('lock_timeout', $1, true)`, [`${timeoutMs}ms`]);
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [RANKING_LOCK_CLASS, projectId]);
}

export interface CoveringRanking {
  id: number;
  projectId: string;
  /** Epoch seconds; null = unbounded. */
  from: number | null;
  to: number | null;
  /** Unused for longer than the idle limit: to be marked stale, not maintained. */
  idle: boolean;
}

export interface WriteTargets {
  rankings: CoveringRanking[];
  /** Sealed months the batch writes into, as `${projectId}\0${monthStart epoch seconds}`. */
  sealedMonths: Set<string>;
}

/**
 * What a writer must update besides the levels, once it holds the shared lock: the live rankings
 * of its projects that overlap [firstHour, endHour), and the sealed months among those hours.
 * Refuses to run outside READ COMMITTED: under a snapshot taken before the writer's lock, a
 * ranking built or a month sealed meanwhile would be missed, and its counts would fall behind.
 */
export async function selectWriteTargets(
  db: Queryable,
  projectIds: readonly string[],
  firstHour: number,
  endHour: number,
  idleSeconds: number,
): Promise<WriteTargets> {
  const rows = await db.query<{
    kind: 'ranking' | 'month' | 'isolation';
    id: number | null;
    project_id: string | null;
    from: number | null;
    to: number | null;
    idle: boolean | null;
    isolation: string | null;
  }>(
    `SELECT 'isolation' AS kind, NULL::bigint AS id, NULL AS project_id, NULL::double precision AS "from",
            NULL::double precision AS "to", NULL::boolean AS idle, current_setting('transaction_isolation') AS isolation
     UNION ALL
     SELECT 'ranking', id, project_id, extract(epoch FROM range_from)::double precision,
            extract(epoch FROM range_to)::double precision, last_used_at < now() - make_interval(secs => $4), NULL
       FROM page_view_rankings
      WHERE project_id = ANY($1::text[]) AND NOT stale
        AND (range_from IS NULL OR range_from < to_timestamp($3::double precision))
        AND (range_to IS NULL OR range_to > to_timestamp($2::double precision))
     UNION ALL
     SELECT 'month', NULL, project_id, extract(epoch FROM month)::double precision, NULL, NULL, NULL
       FROM page_view_sealed_months
      WHERE project_id = ANY($1::text[])
        AND month >= date_trunc('month', to_timestamp($2::double precision), 'UTC')
        AND month < to_timestamp($3::double precision)`,
    [projectIds, firstHour, endHour, idleSeconds],
  );
  const isolation = rows.find((r) => r.kind === 'isolation')?.isolation;
  if (isolation !== 'read committed') {
    throw new Error(`page views must be recorded in a READ COMMITTED transaction, not ${isolation}`);
  }
  const targets: WriteTargets = { rankings: [], sealedMonths: new Set() };
  for (const row of rows) {
    if (row.kind === 'ranking') {
      targets.rankings.push({
        id: row.id!,
        projectId: row.project_id!,
        from: row.from,
        to: row.to,
        idle: row.idle!,
      });
    } else if (row.kind === 'month') targets.sealedMonths.add(`${row.project_id}\0${row.from}`);
  }
  targets.rankings.sort((a, b) => a.id - b.id);
  return targets;
}

export async function markRankingsStale(db: Queryable, ids: readonly number[]): Promise<void> {
  await db.query('UPDATE page_view_rankings SET stale = true WHERE id = ANY($1::bigint[])', [ids]);
}

/** Per-ranking path deltas, distinct (ranking, path) keys in lock order. */
export interface RankingDeltaBatch {
  rankingIds: number[];
  paths: string[];
  human: number[];
  ai: number[];
}

export async function addToRankingRows(db: Queryable, batch: RankingDeltaBatch): Promise<void> {
  await db.query(
    `INSERT INTO page_view_ranking_rows (ranking_id, path, human, ai)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
     ON CONFLICT (ranking_id, path)
     DO UPDATE SET human = page_view_ranking_rows.human + EXCLUDED.human,
                   ai = page_view_ranking_rows.ai + EXCLUDED.ai`,
    [batch.rankingIds, batch.paths, batch.human, batch.ai],
  );
}

const SAME_RANGE = `project_id = $1
   AND range_from IS NOT DISTINCT FROM to_timestamp($2::double precision)
   AND range_to IS NOT DISTINCT FROM to_timestamp($3::double precision)`;

export interface RankingState {
  id: number;
  stale: boolean;
  /** Seconds since a reader last used it. */
  unusedFor: number;
}

export async function selectRanking(
  db: Queryable,
  projectId: string,
  range: HourRange,
): Promise<RankingState | null> {
  const rows = await db.query<{ id: number; stale: boolean; unused_for: number }>(
    `SELECT id, stale, extract(epoch FROM now() - last_used_at)::double precision AS unused_for
       FROM page_view_rankings
      WHERE ${SAME_RANGE}`,
    [projectId, range.from, range.to],
  );
  const row = rows[0];
  return row === undefined ? null : { id: row.id, stale: row.stale, unusedFor: row.unused_for };
}

/** Marks a ranking as used now; false when it has meanwhile gone stale or been removed. */
export async function touchRanking(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query(
    'UPDATE page_view_rankings SET last_used_at = now() WHERE id = $1 AND NOT stale RETURNING id',
    [id],
  );
  return rows.length === 1;
}

/**
 * Removes the project's stale and idle rankings, and beyond that the least recently used ones
 * until at most keep remain (their rows go with them, by cascade). Builders only, under the
 * project's exclusive lock: no writer is adding to those rows then.
 */
export async function deleteRetiredRankings(
  db: Queryable,
  projectId: string,
  idleSeconds: number,
  keep: number,
): Promise<number> {
  const rows = await db.query(
    `DELETE FROM page_view_rankings
      WHERE id IN (
        SELECT id FROM (
          SELECT id, stale OR last_used_at < now() - make_interval(secs => $2) AS retired,
                 row_number() OVER (ORDER BY last_used_at DESC, id DESC) AS recency
            FROM page_view_rankings
           WHERE project_id = $1
        ) AS r
        WHERE retired OR recency > $3)
      RETURNING id`,
    [projectId, idleSeconds, keep],
  );
  return rows.length;
}

export async function insertRanking(db: Queryable, projectId: string, range: HourRange): Promise<number> {
  const rows = await db.query<{ id: number }>(
    `INSERT INTO page_view_rankings (project_id, range_from, range_to)
     VALUES ($1, to_timestamp($2::double precision), to_timestamp($3::double precision))
     RETURNING id`,
    [projectId, range.from, range.to],
  );
  return rows[0]!.id;
}

/**
 * Human and AI views per path over the spans of a range split: hours from the hourly truth, whole
 * days and (sealed) months from their levels. Parameters: $first the project, then the 10 slots
 * of pathSpanParams (two hour spans, two day spans, one month span).
 */
export function pathViewsInSpans(first: number): string {
  const p = first;
  return `SELECT path,
                 CASE WHEN traffic_class = 'human' THEN views ELSE 0 END AS human,
                 CASE WHEN traffic_class = 'ai' THEN views ELSE 0 END AS ai
            FROM page_views_hourly
           WHERE project_id = $${p} AND traffic_class IN ('human', 'ai') AND ${inSpans('hour', p + 1, 2)}
          UNION ALL
          SELECT path, human, ai FROM page_views_daily
           WHERE project_id = $${p} AND ${inSpans('day', p + 5, 2)}
          UNION ALL
          SELECT path, human, ai FROM page_views_monthly
           WHERE project_id = $${p} AND ${inSpans('month', p + 9, 1)}`;
}

/** The earliest day with human or AI views (epoch seconds), null when none. */
export async function selectFirstDay(db: Queryable, projectId: string): Promise<number | null> {
  const rows = await db.query<{ first: number | null }>(
    `SELECT extract(epoch FROM min(day))::double precision AS first FROM page_views_daily WHERE project_id = $1`,
    [projectId],
  );
  return rows[0]?.first ?? null;
}

/**
 * Seals the months of [from, to) (month starts, epoch seconds) not sealed yet: marks them, and
 * sums their daily rows into monthly rows, in one statement. Builders only, under the project's
 * exclusive lock (its snapshot must include every writer that wrote into those months unsealed).
 */
export async function sealMonths(
  db: Queryable,
  projectId: string,
  starts: number[],
  ends: number[],
): Promise<void> {
  await db.query(
    `WITH wanted AS (
       SELECT to_timestamp(s) AS month, to_timestamp(e) AS month_end
         FROM unnest($2::double precision[], $3::double precision[]) AS m (s, e)
        WHERE NOT EXISTS (SELECT 1 FROM page_view_sealed_months sm
                           WHERE sm.project_id = $1 AND sm.month = to_timestamp(m.s))
     ), marked AS (
       INSERT INTO page_view_sealed_months (project_id, month) SELECT $1, month FROM wanted
     )
     INSERT INTO page_views_monthly (project_id, month, path, human, ai)
     SELECT $1, w.month, d.path, sum(d.human), sum(d.ai)
       FROM wanted w JOIN page_views_daily d
         ON d.project_id = $1 AND d.day >= w.month AND d.day < w.month_end
      GROUP BY w.month, d.path`,
    [projectId, starts, ends],
  );
}

/**
 * Fills a new ranking with every path of the range that has human or AI views. Its own snapshot
 * must start after the builder's lock (READ COMMITTED: each statement takes a fresh one).
 */
export async function fillRanking(
  db: Queryable,
  id: number,
  projectId: string,
  spanParams: readonly (number | null)[],
): Promise<void> {
  // A hash aggregate of ~100k paths needs more than the 4 MB default; spilling to disk was the
  // main cost in the planning measurements. LOCAL: for this transaction only.
  await db.query(`SELECT set_config('work_mem', '64MB', true)`);
  await db.query(
    `INSERT INTO page_view_ranking_rows (ranking_id, path, human, ai)
     SELECT $1, path, sum(human)::bigint, sum(ai)::bigint
       FROM (${pathViewsInSpans(2)}) AS v
      GROUP BY path
     HAVING sum(human) + sum(ai) > 0`,
    [id, projectId, ...spanParams],
  );
}

/** Whether the ranking is live in this transaction's snapshot. */
export async function isRankingLive(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM page_view_rankings WHERE id = $1 AND NOT stale', [id]);
  return rows.length === 1;
}

export interface PathViewsRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

/** One page in the export's order: total descending, then path in byte order (the column is "C"). */
export async function selectRankingPage(
  db: Queryable,
  id: number,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[]> {
  return db.query<PathViewsRow>(
    `SELECT path, human, ai, total
       FROM page_view_ranking_rows
      WHERE ranking_id = $1
      ORDER BY total DESC, path
      LIMIT $2 OFFSET $3`,
    [id, page.limit, page.offset],
  );
}

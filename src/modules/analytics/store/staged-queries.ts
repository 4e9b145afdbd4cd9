// SQL for page views staged by ingestion and not yet merged into the rollups (migration 0008),
// one function per statement.
import type { Queryable } from '../../../db/database.ts';

/** Advisory lock class that serialises merges ('stag'); the object id is always 0. */
export const STAGING_LOCK_CLASS = 0x73746167;

export interface StagedRow {
  views: number;
  /** JSON text of ViewSums.encode() (view-sums.ts). */
  counts: string;
  /** JSON text of ReferralSums.encode() (referral-sums.ts); null when the group had none. */
  referrals: string | null;
  /** JSON text of FormatSums.encode() (format-sums.ts); null when the group had only html views. */
  formats: string | null;
}

/**
 * Appends a staged row, and the group's visitor ids (VisitorSets.encodeBinary(), null: none) to
 * visitor_ids_staged in the same statement: one round trip for both. Returns the staged row's id
 * (the writer's merger remembers what each id holds).
 */
export async function insertStagedCounts(
  tx: Queryable,
  row: StagedRow,
  visitorIds: Uint8Array | null,
): Promise<number> {
  const rows = await tx.query<{ id: number }>(
    `WITH visitor_ids AS (
       INSERT INTO visitor_ids_staged (ids) SELECT $5::bytea WHERE $5::bytea IS NOT NULL
     )
     INSERT INTO page_views_staged (views, counts, referrals, formats) VALUES ($1, $2, $3, $4) RETURNING id`,
    [row.views, row.counts, row.referrals, row.formats, visitorIds],
  );
  return Number(rows[0]!.id);
}

/** True when anything waits to be merged (the cheap check every export makes first). */
export async function selectAnyStaged(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ id: number }>('SELECT id FROM page_views_staged ORDER BY id LIMIT 1');
  return rows.length > 0;
}

/** Waits for any other merge to end; held until the caller's transaction ends. */
export async function lockStaging(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [STAGING_LOCK_CLASS]);
}

/**
 * Removes the given staged rows and returns the ids of those that were still there (another
 * merge may have taken some): their contents are known to the caller, so they are not sent back.
 */
export async function deleteStagedByIds(tx: Queryable, ids: readonly number[]): Promise<number[]> {
  const rows = await tx.query<{ id: number }>(
    'DELETE FROM page_views_staged WHERE id = ANY($1::bigint[]) RETURNING id',
    [ids],
  );
  return rows.map((r) => Number(r.id));
}

/** Removes and returns the oldest staged rows, at most `limit`; they are merged in the same transaction. */
export async function deleteOldestStaged(
  tx: Queryable,
  limit: number,
): Promise<Pick<StagedRow, 'counts' | 'referrals' | 'formats'>[]> {
  return tx.query<Pick<StagedRow, 'counts' | 'referrals' | 'formats'>>(
    `DELETE FROM page_views_staged
      WHERE id IN (SELECT id FROM page_views_staged ORDER BY id LIMIT $1)
      RETURNING counts, referrals, formats`,
    [limit],
  );
}

/** Those of the given projects that still exist (a project deleted meanwhile loses its staged views). */
export async function selectExistingProjects(
  tx: Queryable,
  projectIds: readonly string[],
): Promise<Set<string>> {
  const rows = await tx.query<{ id: string }>('SELECT id FROM projects WHERE id = ANY($1::text[])', [
    projectIds,
  ]);
  return new Set(rows.map((r) => r.id));
}

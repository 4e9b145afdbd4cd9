// SQL for distinct visitors (migrations 0015, 0027): the daily salts, the sketches per level and the
// generation that tells a cached ranking it is stale. One function per statement.
import type { Queryable } from '../../../db/database.ts';
import { inSpans } from './span-params.ts';

export type SketchLevel = 'h' | 'd' | 'm';

/** The salt of one UTC day (YYYY-MM-DD); null once deleted or never made. */
export async function selectSalt(db: Queryable, day: string): Promise<Uint8Array | null> {
  const rows = await db.query<{ salt: Uint8Array }>('SELECT salt FROM visitor_salts WHERE day = $1::date', [
    day,
  ]);
  return rows[0]?.salt ?? null;
}

/** Stores a day's salt unless another process stored one first (theirs is then read back). */
export async function insertSalt(db: Queryable, day: string, saltHex: string): Promise<void> {
  await db.query(
    `INSERT INTO visitor_salts (day, salt) VALUES ($1::date, decode($2, 'hex')) ON CONFLICT (day) DO NOTHING`,
    [day, saltHex],
  );
}

/** Deletes the salts of the days before `day`: their ids can no longer be made again. */
export async function deleteSaltsBefore(db: Queryable, day: string): Promise<void> {
  await db.query('DELETE FROM visitor_salts WHERE day < $1::date', [day]);
}

/** One sketch row's key; buckets are ISO 8601 UTC. */
export interface SketchKeys {
  projectIds: string[];
  levels: SketchLevel[];
  buckets: string[];
  paths: string[];
}

export interface StoredSketchRow {
  project_id: string;
  level: SketchLevel;
  bucket: Date;
  path: string;
  human: Uint8Array | null;
  ai: Uint8Array | null;
}

/** The stored rows of the given keys, locked until the transaction ends. */
export async function selectSketchesForUpdate(tx: Queryable, keys: SketchKeys): Promise<StoredSketchRow[]> {
  return tx.query<StoredSketchRow>(
    `SELECT s.project_id, s.level::text AS level, s.bucket, s.path, s.human, s.ai
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS k(project_id, level, bucket, path)
       JOIN visitor_sketches s
         ON s.project_id = k.project_id AND s.level = k.level::"char" AND s.bucket = k.bucket AND s.path = k.path
        FOR UPDATE OF s`,
    [keys.projectIds, keys.levels, keys.buckets, keys.paths],
  );
}

/** Rows to write whole: sketches as hex text (null: none for that class), and their bounds. */
export interface SketchBatch extends SketchKeys {
  human: (string | null)[];
  ai: (string | null)[];
  /** Each row's bound of distinct visitors, human + AI (visitor-bounds.ts, migration 0027); null for hours. */
  bounds: (number | null)[];
}

export async function upsertSketches(tx: Queryable, batch: SketchBatch): Promise<void> {
  await tx.query(
    `INSERT INTO visitor_sketches (project_id, level, bucket, path, human, ai, bound)
     SELECT project_id, level::"char", bucket, path, decode(human, 'hex'), decode(ai, 'hex'), bound
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::bigint[])
         AS r(project_id, level, bucket, path, human, ai, bound)
     ON CONFLICT (project_id, level, bucket, path)
     DO UPDATE SET human = EXCLUDED.human, ai = EXCLUDED.ai, bound = EXCLUDED.bound`,
    [batch.projectIds, batch.levels, batch.buckets, batch.paths, batch.human, batch.ai, batch.bounds],
  );
}

/** Moves the given projects' generations on (sorted ids: one lock order for every writer). */
export async function bumpGenerations(tx: Queryable, projectIds: readonly string[]): Promise<void> {
  await tx.query(
    `INSERT INTO visitor_generations (project_id, generation)
     SELECT id, 1 FROM unnest($1::text[]) AS p(id)
     ON CONFLICT (project_id) DO UPDATE SET generation = visitor_generations.generation + 1`,
    [projectIds],
  );
}

export async function selectGeneration(db: Queryable, projectId: string): Promise<number> {
  const rows = await db.query<{ generation: number }>(
    'SELECT generation FROM visitor_generations WHERE project_id = $1',
    [projectId],
  );
  return rows[0] === undefined ? 0 : Number(rows[0].generation);
}

/** The first monthly bucket with visitors, in epoch seconds; null when none. */
export async function selectFirstSketchMonth(db: Queryable, projectId: string): Promise<number | null> {
  const rows = await db.query<{ first: number | null }>(
    `SELECT extract(epoch FROM min(bucket))::double precision AS first
       FROM visitor_sketches WHERE project_id = $1 AND level = 'm'`,
    [projectId],
  );
  return rows[0]?.first ?? null;
}

export interface SketchRow {
  path: string;
  human: Uint8Array | null;
  ai: Uint8Array | null;
}

/** Every sketch of a range split (pathSpanParams: 10 values from $2), site-wide ones included. */
export async function selectRangeSketches(
  db: Queryable,
  projectId: string,
  spans: readonly (number | null)[],
): Promise<SketchRow[]> {
  return db.query<SketchRow>(
    `SELECT path, human, ai FROM visitor_sketches
      WHERE project_id = $1 AND (
        (level = 'h' AND ${inSpans('bucket', 2, 2)}) OR
        (level = 'd' AND ${inSpans('bucket', 6, 2)}) OR
        (level = 'm' AND ${inSpans('bucket', 10, 1)}))`,
    [projectId, ...spans],
  );
}

/** Advisory lock class that serialises folds ('vfld'); the object id is always 0. */
export const VISITOR_FOLD_LOCK_CLASS = 0x76666c64;

/** True when visitor ids wait to be folded (the cheap check before every fold). */
export async function selectAnyStagedVisitors(db: Queryable): Promise<boolean> {
  const rows = await db.query('SELECT id FROM visitor_ids_staged ORDER BY id LIMIT 1');
  return rows.length > 0;
}

/** Waits for any other fold to end; held until the caller's transaction ends. */
export async function lockVisitorFold(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [VISITOR_FOLD_LOCK_CLASS]);
}

/** Stages visitor ids (VisitorSets.encodeBinary()) to be folded later: a log import's chunk. */
export async function insertStagedVisitorIds(tx: Queryable, ids: Uint8Array): Promise<void> {
  await tx.query('INSERT INTO visitor_ids_staged (ids) VALUES ($1)', [ids]);
}

/**
 * A staged row of visitor ids: `ids` (bytes, VisitorSets.encodeBinary()) since migration 0021,
 * `visitors` (JSON text, VisitorSets.encode()) for rows staged before it; never both.
 * Ingest stages them with its views (insertStagedCounts in staged-queries.ts).
 */
export interface StagedVisitorRow {
  ids: Uint8Array | null;
  visitors: string | null;
}

/** Removes and returns the oldest staged visitor rows, at most `limit`, folded in the same transaction. */
export async function deleteOldestStagedVisitors(tx: Queryable, limit: number): Promise<StagedVisitorRow[]> {
  return tx.query<StagedVisitorRow>(
    `DELETE FROM visitor_ids_staged
      WHERE id IN (SELECT id FROM visitor_ids_staged ORDER BY id LIMIT $1)
      RETURNING ids, visitors`,
    [limit],
  );
}

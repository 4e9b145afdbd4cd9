// SQL for API keys, one function per statement.
import type { Queryable } from '../../db/database.ts';

export type KeyScope = 'admin' | 'read' | 'ingest';
export const KEY_SCOPES: readonly KeyScope[] = ['admin', 'read', 'ingest'];

export interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string;
  scope: KeyScope;
  lookup: string;
  secret_hash: Buffer | Uint8Array;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function insertKey(
  db: Queryable,
  k: {
    id: string;
    projectId: string;
    name: string;
    scope: KeyScope;
    lookup: string;
    secretHash: Buffer;
    expiresAt: Date | null;
  },
): Promise<ApiKeyRow> {
  const rows = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, project_id, name, scope, lookup, secret_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING *`,
    [k.id, k.projectId, k.name, k.scope, k.lookup, k.secretHash, k.expiresAt],
  );
  return rows[0]!;
}

/** The key whose whole-key SHA-256 this is (api_keys_secret_hash, a unique index). */
export async function selectKeyBySecretHash(db: Queryable, secretHash: Buffer): Promise<ApiKeyRow | null> {
  const rows = await db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE secret_hash = $1', [secretHash]);
  return rows[0] ?? null;
}

export async function selectKeysOfProject(db: Queryable, projectId: string): Promise<ApiKeyRow[]> {
  const rows = await db.query<ApiKeyRow>(
    'SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id',
    [projectId],
  );
  return rows;
}

/**
 * The channel on which a change to a key is announced, with the key's id as payload (an empty
 * payload: every key). Every process's key cache listens on it (key-cache.ts).
 */
export const KEYS_CHANNEL = 'docwright_keys';

/**
 * Sets revoked_at once; revoking a revoked key keeps the first time. The NOTIFY is part of the
 * same statement, so it is sent exactly when the revocation commits (with the caller's
 * transaction, if any), and never for a rolled-back one.
 */
export async function updateKeyRevoked(db: Queryable, id: string): Promise<ApiKeyRow | null> {
  const rows = await db.query<ApiKeyRow>(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *
     )
     SELECT revoked.*, pg_notify('${KEYS_CHANNEL}', revoked.id) AS notified FROM revoked`,
    [id],
  );
  return rows[0] ?? null;
}

/** Records use at most once a minute per key, so busy keys do not write on every request. */
export async function updateKeyLastUsed(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

// SQL for ingest batches' Idempotency-Keys (migration 0007), one function per statement.

import type { IngestResult } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';

/** A batch's claim on its key, written in the transaction that counts its views. */
export interface IngestClaim {
  projectId: string;
  key: string;
  requestHash: string;
  result: IngestResult;
}

/** A claim's identity: keys are per project. */
export function claimId(claim: Pick<IngestClaim, 'projectId' | 'key'>): string {
  return `${claim.projectId}\0${claim.key}`;
}

export interface StoredIngestBatch {
  request_hash: string;
  result: IngestResult;
}

/** The answer stored under a key within the last 24 hours, or null. */
export async function selectIngestBatch(
  db: Queryable,
  projectId: string,
  key: string,
): Promise<StoredIngestBatch | null> {
  const rows = await db.query<StoredIngestBatch>(
    `SELECT request_hash, result FROM ingest_batches
      WHERE project_id = $1 AND key = $2 AND created_at > now() - interval '24 hours'`,
    [projectId, key],
  );
  return rows[0] ?? null;
}

/**
 * Writes the claims whose keys are free (never used, or used more than 24 hours ago) and returns
 * their claimId()s. A key already taken within 24 hours is left as it is and not
 * returned: that batch is a retry, and its views must not be counted again. The claims must have
 * distinct keys (ON CONFLICT cannot touch one row twice in a statement); a concurrent writer of
 * the same key waits here until the other transaction ends.
 */
export async function insertIngestClaims(
  tx: Queryable,
  claims: readonly IngestClaim[],
): Promise<Set<string>> {
  const rows = await tx.query<{ project_id: string; key: string }>(
    `INSERT INTO ingest_batches (project_id, key, request_hash, result)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])
     ON CONFLICT (project_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, result = EXCLUDED.result, created_at = now()
       WHERE ingest_batches.created_at <= now() - interval '24 hours'
     RETURNING project_id, key`,
    [
      claims.map((c) => c.projectId),
      claims.map((c) => c.key),
      claims.map((c) => c.requestHash),
      claims.map((c) => JSON.stringify(c.result)),
    ],
  );
  return new Set(rows.map((row) => claimId({ projectId: row.project_id, key: row.key })));
}

/** Forgets keys older than 24 hours (run now and then by the writer, not per batch). */
export async function deleteExpiredIngestBatches(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM ingest_batches WHERE created_at <= now() - interval '24 hours'`);
}

// SQL for the job worker: claiming with a lease, renewing it, finishing, releasing, and failing
// jobs whose workers died too often. Every write that ends a run checks the lease owner and the
// status, so a cancelled job or one taken over by another worker is never overwritten.
import type { Queryable } from '../../db/database.ts';
import type { JobRow } from './queries.ts';

/**
 * Takes the oldest active job that nobody holds (or whose holder's lease ran out) and has tries
 * left, and records the try's 'started' event in the same statement: a worker that dies right
 * after claiming still leaves the try in the job's history, so the next try counts it. SKIP
 * LOCKED lets many workers claim at once without waiting on each other. The lock is FOR NO KEY
 * UPDATE, the lock the UPDATE itself takes: FOR UPDATE would also conflict with the KEY SHARE lock
 * a row referencing the job takes while it is written (an event, a webhook delivery, an
 * automation run naming its job), and SKIP LOCKED would then pass over a new job until the next
 * poll.
 */
export async function claimNextJob(
  db: Queryable,
  w: { owner: string; leaseMs: number; maxAttempts: number },
): Promise<JobRow | null> {
  const rows = await db.query<JobRow>(
    `WITH claimed AS (
       UPDATE jobs
          SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond',
              attempts = attempts + 1, updated_at = now()
        WHERE id = (
          SELECT id FROM jobs
           WHERE status = 'active' AND (lease_expires_at IS NULL OR lease_expires_at < now()) AND attempts < $3
           ORDER BY created_at, id
           LIMIT 1
           FOR NO KEY UPDATE SKIP LOCKED)
        RETURNING *),
     started AS (
       INSERT INTO job_events (job_id, type, data)
       SELECT id, 'started', jsonb_build_object('attempt', attempts, 'worker', $1::text) FROM claimed)
     SELECT * FROM claimed`,
    [w.owner, w.leaseMs, w.maxAttempts],
  );
  return rows[0] ?? null;
}

/** Extends the lease; false when the job is no longer this worker's active job (cancelled, lost). */
export async function renewLease(
  db: Queryable,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET lease_expires_at = now() + $3 * interval '1 millisecond'
      WHERE id = $1 AND lease_owner = $2 AND status = 'active'
      RETURNING id`,
    [id, owner, leaseMs],
  );
  return rows.length > 0;
}

/** Gives a job back untouched (graceful shutdown): the try does not count. */
export async function releaseJob(db: Queryable, id: string, owner: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0), updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'active'
      RETURNING id`,
    [id, owner],
  );
  return rows.length > 0;
}

/**
 * Hands a job back to the queue at once, its try counted: for a run interrupted by something that
 * is not the job's fault but might be mistaken for it, so that at worst it uses up its tries.
 */
export async function requeueJob(db: Queryable, id: string, owner: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'active'
      RETURNING id`,
    [id, owner],
  );
  return rows.length > 0;
}

export interface RunResultRow {
  status: 'completed' | 'failed';
  prLink: string | null;
  branch: string | null;
  summary: string | null;
  stopReason: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  usage: object | null;
}

export async function finishJob(
  db: Queryable,
  id: string,
  owner: string,
  r: RunResultRow,
): Promise<JobRow | null> {
  const rows = await db.query<JobRow>(
    `UPDATE jobs
        SET status = $3, pr_link = coalesce($4, pr_link), branch = coalesce($5, branch), summary = $6,
            stop_reason = $7, error_code = $8, error_message = $9, usage = $10,
            lease_owner = NULL, lease_expires_at = NULL, completed_at = now(), updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'active'
      RETURNING *`,
    [
      id,
      owner,
      r.status,
      r.prLink,
      r.branch,
      r.summary,
      r.stopReason,
      r.errorCode,
      r.errorMessage,
      r.usage === null ? null : JSON.stringify(r.usage),
    ],
  );
  return rows[0] ?? null;
}

/** Records the branch as soon as the run knows it, so a lost run still says where its work is. */
export async function updateJobBranch(
  db: Queryable,
  id: string,
  owner: string,
  branch: string,
): Promise<void> {
  await db.query('UPDATE jobs SET branch = $3, updated_at = now() WHERE id = $1 AND lease_owner = $2', [
    id,
    owner,
    branch,
  ]);
}

/** Active jobs whose last allowed try ended without a live worker: failed, worker_lost. */
export async function failAbandonedJobs(
  db: Queryable,
  maxAttempts: number,
  message: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE jobs
        SET status = 'failed', error_code = 'worker_lost', error_message = $2,
            lease_owner = NULL, lease_expires_at = NULL, completed_at = now(), updated_at = now()
      WHERE status = 'active' AND attempts >= $1 AND lease_expires_at < now()
      RETURNING id`,
    [maxAttempts, message],
  );
  return rows.map((r) => r.id);
}

export async function selectJobStatus(db: Queryable, id: string): Promise<string | null> {
  const rows = await db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id]);
  return rows[0]?.status ?? null;
}

export async function selectPrompts(
  db: Queryable,
  jobId: string,
): Promise<{ seq: number; prompt: string }[]> {
  return db.query<{ seq: number; prompt: string }>(
    'SELECT seq, prompt FROM job_prompts WHERE job_id = $1 ORDER BY seq',
    [jobId],
  );
}

/** The events that start and end runs, oldest first: enough to pair each prompt with its summary. */
export async function selectRunEvents(
  db: Queryable,
  jobId: string,
): Promise<{ type: string; data: { summary?: string; stopReason?: string } }[]> {
  return db.query(
    `SELECT type, data FROM job_events
      WHERE job_id = $1 AND type IN ('created', 'message', 'started', 'completed', 'failed')
      ORDER BY id`,
    [jobId],
  );
}

// SQL for agent jobs, their prompts, events and idempotency keys; one function per statement.

import type { JobEventType, JobStatus } from '../../contract/index.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobCodeSource } from './code-source.ts';

export interface JobRow {
  id: string;
  project_id: string;
  status: JobStatus;
  prompt: string;
  source_repository: string;
  source_ref: string;
  model: string;
  pr_link: string | null;
  branch: string | null;
  summary: string | null;
  error_code: string | null;
  error_message: string | null;
  usage: { inputTokens: number; outputTokens: number; steps: number } | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  archived_at: Date | null;
}

/** Serialises writes that must see each other within one project (rate limit, idempotency). */
export async function lockProjectJobs(db: Queryable, projectId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('docwright.jobs:' || $1))", [projectId]);
}

export async function insertJob(
  db: Queryable,
  j: {
    id: string;
    projectId: string;
    status: JobStatus;
    prompt: string;
    repository: string;
    ref: string;
    model: string;
    errorCode: string | null;
    errorMessage: string | null;
  },
): Promise<JobRow> {
  const rows = await db.query<JobRow>(
    `INSERT INTO jobs (id, project_id, status, prompt, source_repository, source_ref, model, error_code, error_message,
                       completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $3 = 'active' THEN NULL ELSE now() END)
     RETURNING *`,
    [j.id, j.projectId, j.status, j.prompt, j.repository, j.ref, j.model, j.errorCode, j.errorMessage],
  );
  return rows[0]!;
}

/** The job, locked until the transaction ends: for checks that a later update relies on. */
export async function selectJobForUpdate(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<JobRow | null> {
  const rows = await db.query<JobRow>('SELECT * FROM jobs WHERE project_id = $1 AND id = $2 FOR UPDATE', [
    projectId,
    id,
  ]);
  return rows[0] ?? null;
}

export async function selectJob(db: Queryable, projectId: string, id: string): Promise<JobRow | null> {
  const rows = await db.query<JobRow>('SELECT * FROM jobs WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
  ]);
  return rows[0] ?? null;
}

/** Newest first; after = the id of the last job of the previous page (the cursor). */
export async function selectJobPage(
  db: Queryable,
  q: { projectId: string; status: JobStatus | null; after: string | null; limit: number },
): Promise<JobRow[]> {
  return db.query<JobRow>(
    `SELECT j.* FROM jobs j
      WHERE j.project_id = $1
        AND ($2::text IS NULL OR j.status = $2)
        AND ($3::text IS NULL OR (j.created_at, j.id) < (SELECT c.created_at, c.id FROM jobs c WHERE c.id = $3))
      ORDER BY j.created_at DESC, j.id DESC
      LIMIT $4`,
    [q.projectId, q.status, q.after, q.limit],
  );
}

export async function jobExistsInProject(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM jobs WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows.length > 0;
}

export async function insertPrompt(
  db: Queryable,
  p: { jobId: string; projectId: string; prompt: string; codeSource?: JobCodeSource | null },
): Promise<number> {
  const rows = await db.query<{ seq: number }>(
    `INSERT INTO job_prompts (job_id, seq, project_id, prompt, code_source)
     SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4 FROM job_prompts WHERE job_id = $1
     RETURNING seq`,
    [p.jobId, p.projectId, p.prompt, p.codeSource ? JSON.stringify(p.codeSource) : null],
  );
  return rows[0]!.seq;
}

/** Prompts the project received in the last hour, and when the oldest of them arrived. */
export async function countRecentPrompts(
  db: Queryable,
  projectId: string,
): Promise<{ count: number; oldest: Date | null }> {
  const rows = await db.query<{ count: number; oldest: Date | null }>(
    `SELECT count(*)::bigint AS count, min(created_at) AS oldest
       FROM job_prompts
      WHERE project_id = $1 AND created_at > now() - interval '1 hour'`,
    [projectId],
  );
  return rows[0]!;
}

export async function insertEvent(
  db: Queryable,
  jobId: string,
  type: JobEventType,
  data: object = {},
): Promise<void> {
  await db.query('INSERT INTO job_events (job_id, type, data) VALUES ($1, $2, $3)', [
    jobId,
    type,
    JSON.stringify(data),
  ]);
}

/** Wakes workers listening on PostgreSQL (delivered at commit); PGlite delivers it in-process. */
export async function notifyJobQueued(db: Queryable, jobId: string): Promise<void> {
  await db.query("SELECT pg_notify('docwright_jobs', $1)", [jobId]);
}

export async function selectIdempotencyKey(
  db: Queryable,
  projectId: string,
  key: string,
): Promise<{ request_hash: string; job_id: string; fresh: boolean } | null> {
  const rows = await db.query<{ request_hash: string; job_id: string; fresh: boolean }>(
    `SELECT request_hash, job_id, created_at > now() - interval '24 hours' AS fresh
       FROM job_idempotency_keys WHERE project_id = $1 AND key = $2`,
    [projectId, key],
  );
  return rows[0] ?? null;
}

/** Stores the key, replacing an expired entry with the same key. */
export async function upsertIdempotencyKey(
  db: Queryable,
  k: { projectId: string; key: string; requestHash: string; jobId: string },
): Promise<void> {
  await db.query(
    `INSERT INTO job_idempotency_keys (project_id, key, request_hash, job_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, job_id = EXCLUDED.job_id, created_at = now()`,
    [k.projectId, k.key, k.requestHash, k.jobId],
  );
}

/** active → failed(cancelled). Null when the job was not active. */
export async function updateJobCancelled(db: Queryable, projectId: string, id: string, message: string) {
  const rows = await db.query<JobRow>(
    `UPDATE jobs
        SET status = 'failed', error_code = 'cancelled', error_message = $3, cancel_requested_at = now(),
            completed_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status = 'active'
      RETURNING *`,
    [projectId, id, message],
  );
  return rows[0] ?? null;
}

/** completed | failed → archived. Null when the job was active or already archived. */
export async function updateJobArchived(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<JobRow | null> {
  const rows = await db.query<JobRow>(
    `UPDATE jobs SET status = 'archived', archived_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ('completed', 'failed')
      RETURNING *`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

/**
 * completed | failed → active again for a follow-up, with the model it will use; the worker
 * treats it as a fresh run.
 */
export async function updateJobReactivated(
  db: Queryable,
  projectId: string,
  id: string,
  model: string,
): Promise<JobRow | null> {
  const rows = await db.query<JobRow>(
    `UPDATE jobs
        SET status = 'active', model = $3, error_code = NULL, error_message = NULL, completed_at = NULL,
            stop_reason = NULL, attempts = 0, lease_owner = NULL, lease_expires_at = NULL,
            cancel_requested_at = NULL, updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ('completed', 'failed')
      RETURNING *`,
    [projectId, id, model],
  );
  return rows[0] ?? null;
}

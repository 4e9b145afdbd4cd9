// SQL for a job's stored diff; one function per statement.
import type { Queryable } from '../../../db/database.ts';

export interface JobDiffRow {
  diff: string;
  total_bytes: number;
  truncated: boolean;
  updated_at: Date;
}

/** Stores the diff, replacing an earlier one (a follow-up's run supersedes the last). */
export async function upsertJobDiff(
  db: Queryable,
  d: { jobId: string; diff: string; totalBytes: number; truncated: boolean },
): Promise<void> {
  await db.query(
    `INSERT INTO job_diffs (job_id, diff, total_bytes, truncated) VALUES ($1, $2, $3, $4)
     ON CONFLICT (job_id) DO UPDATE
       SET diff = EXCLUDED.diff, total_bytes = EXCLUDED.total_bytes, truncated = EXCLUDED.truncated,
           updated_at = now()`,
    [d.jobId, d.diff, d.totalBytes, d.truncated],
  );
}

export async function selectJobDiff(db: Queryable, jobId: string): Promise<JobDiffRow | null> {
  const rows = await db.query<JobDiffRow>(
    'SELECT diff, total_bytes, truncated, updated_at FROM job_diffs WHERE job_id = $1',
    [jobId],
  );
  return rows[0] ?? null;
}

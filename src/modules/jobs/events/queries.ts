// SQL for reading a job's stored events (the SSE stream and its JSON fallback); one function per
// statement. Events are written by the job service and the worker (src/modules/jobs/queries.ts).

import type { JobStatus } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';

export interface JobEventRow {
  id: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** The job's events with id > after, oldest first. */
export async function selectJobEventsAfter(
  db: Queryable,
  jobId: string,
  after: number,
  limit: number,
): Promise<JobEventRow[]> {
  return db.query<JobEventRow>(
    `SELECT id, type, data, created_at FROM job_events
      WHERE job_id = $1 AND id > $2
      ORDER BY id
      LIMIT $3`,
    [jobId, after, limit],
  );
}

export interface JobStreamState {
  status: JobStatus;
  /** Seconds since the job row last changed (clock of the database). */
  idle_seconds: number;
  /** The newest terminal event, and the newest event that starts a run (created, message). */
  last_end_id: number | null;
  last_start_id: number | null;
}

/** What a stream needs to decide whether the job is over; null when the job does not exist. */
export async function selectJobStreamState(db: Queryable, jobId: string): Promise<JobStreamState | null> {
  const rows = await db.query<JobStreamState>(
    `SELECT j.status,
            extract(epoch FROM now() - j.updated_at)::float8 AS idle_seconds,
            (SELECT max(e.id) FROM job_events e
              WHERE e.job_id = j.id AND e.type IN ('completed', 'failed', 'archived')) AS last_end_id,
            (SELECT max(e.id) FROM job_events e
              WHERE e.job_id = j.id AND e.type IN ('created', 'message')) AS last_start_id
       FROM jobs j
      WHERE j.id = $1`,
    [jobId],
  );
  return rows[0] ?? null;
}

// SQL for a job's docs check results, which live in its docs_checks events; one function per
// statement.
import type { Queryable } from '../../../db/database.ts';

export interface ChecksEventRow {
  data: Record<string, unknown>;
  created_at: Date;
}

/** The job's newest docs_checks event over the whole change (not a check_docs call narrowed to paths). */
export async function selectLastChecksEvent(db: Queryable, jobId: string): Promise<ChecksEventRow | null> {
  const rows = await db.query<ChecksEventRow>(
    `SELECT data, created_at FROM job_events
      WHERE job_id = $1 AND type = 'docs_checks' AND data->'scope' = 'null'::jsonb
      ORDER BY id DESC
      LIMIT 1`,
    [jobId],
  );
  return rows[0] ?? null;
}

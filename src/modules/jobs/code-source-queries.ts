// SQL for the code source of a job's prompts (code-source.ts).
import type { Queryable } from '../../db/database.ts';

export async function selectLatestCodeSource(db: Queryable, jobId: string): Promise<unknown> {
  const rows = await db.query<{ code_source: unknown }>(
    `SELECT code_source FROM job_prompts
      WHERE job_id = $1 AND code_source IS NOT NULL
      ORDER BY seq DESC LIMIT 1`,
    [jobId],
  );
  return rows[0]?.code_source ?? null;
}

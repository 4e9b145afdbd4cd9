// A job's last docs check, read by GET .../job/{id}/checks and the dashboard's job page. The
// runner stores each check as a docs_checks event; this shapes the newest one for the API.
import type { Static } from 'typebox';
import type { JobChecksSchema } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';
import { getJob } from '../service.ts';
import { jobChecksErrors } from './errors.ts';
import { selectLastChecksEvent } from './queries.ts';

export type JobChecksView = Static<typeof JobChecksSchema>;

export async function getJobChecks(db: Queryable, projectId: string, jobId: string): Promise<JobChecksView> {
  const job = await getJob(db, projectId, jobId);
  const row = await selectLastChecksEvent(db, job.id);
  if (row === null) {
    throw jobChecksErrors.job_checks_not_found(
      job.status === 'active'
        ? `Job "${job.id}" has not been checked yet: the checks run when the agent finishes its edits.`
        : `Job "${job.id}" has no docs check: its project has checks off, or it ended before the checks ran.`,
    );
  }
  const data = row.data;
  const number = (name: string) => (typeof data[name] === 'number' ? (data[name] as number) : 0);
  const introduced = Array.isArray(data.introduced) ? (data.introduced as JobChecksView['introduced']) : [];
  return {
    framework: String(data.framework ?? 'markdown'),
    mode: data.mode === 'block' ? 'block' : 'warn',
    trigger: data.trigger === 'tool' || data.trigger === 'after_fix' ? data.trigger : 'publish',
    passed: number('introducedCount') === 0,
    introducedCount: number('introducedCount'),
    introduced: introduced.map((p) => ({
      code: p.code,
      file: p.file,
      line: p.line,
      message: p.message,
      hint: p.hint,
    })),
    preexisting: number('preexisting'),
    pagesChecked: number('pagesChecked'),
    durationMs: number('durationMs'),
    checkedAt: row.created_at.toISOString(),
  };
}

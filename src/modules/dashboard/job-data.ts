// Reads what the jobs pages show, through the jobs module's own functions.

import type { JobEventView } from '../../contract/index.ts';
import type { Queryable } from '../../db/database.ts';
import { AppError } from '../../errors/app-error.ts';
import { getJobDiff, listJobEvents, listJobPrompts } from '../jobs/index.ts';

/** At most this many events on a page; a job's timeline longer than this shows its newest ones. */
export const TIMELINE_LIMIT = 500;

export async function jobEvents(db: Queryable, jobId: string, after = 0): Promise<JobEventView[]> {
  return listJobEvents(db, jobId, after, TIMELINE_LIMIT);
}

export async function jobPrompts(db: Queryable, jobId: string, first: string): Promise<string[]> {
  const prompts = await listJobPrompts(db, jobId);
  return prompts.length > 0 ? prompts : [first];
}

/** The job's diff, or null with the reason the diff service gives for its absence. */
export async function jobDiff(
  db: Queryable,
  projectId: string,
  jobId: string,
): Promise<{ diff: { diff: string; truncated: boolean } | null; why: string }> {
  try {
    const diff = await getJobDiff(db, projectId, jobId);
    return { diff, why: '' };
  } catch (error) {
    if (error instanceof AppError && error.code === 'job_diff_not_found')
      return { diff: null, why: error.message };
    throw error;
  }
}

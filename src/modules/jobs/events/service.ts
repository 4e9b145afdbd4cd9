// A job's stored events as other modules read them (the dashboard's timeline and live page), so
// they need not know the SQL in queries.ts.

import type { JobEventView } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';
import { toJobEventView } from './event-view.ts';
import { jobStreamIsOver } from './job-event-stream.ts';
import { selectJobEventsAfter, selectJobStreamState } from './queries.ts';

/** The job's events with id > after, oldest first, at most `limit` of them. */
export async function listJobEvents(
  db: Queryable,
  jobId: string,
  after: number,
  limit: number,
): Promise<JobEventView[]> {
  return (await selectJobEventsAfter(db, jobId, after, limit)).map(toJobEventView);
}

/** Whether a reader that has seen the job's events up to `cursor` will get no more. */
export async function jobEventsAreOver(db: Queryable, jobId: string, cursor: number): Promise<boolean> {
  return jobStreamIsOver(await selectJobStreamState(db, jobId), cursor);
}

// CI watches as the rest of docwright sees them: started by the job worker when a run opens or
// updates its pull request (in the transaction that records the run's outcome), read by GET
// .../job/{id}/ci. The watcher (watcher.ts) does the polling.
import type { Static } from 'typebox';
import type { JobCiSchema } from '../../../contract/index.ts';
import type { Database, Queryable } from '../../../db/database.ts';
import { findProject, getProject, type ProjectSettings } from '../../projects/index.ts';
import { insertEvent } from '../queries.ts';
import { getJob } from '../service.ts';
import { jobCiErrors } from './errors.ts';
import {
  type CiWatchRow,
  notifyWatchStarted,
  selectLastPullRequestEvent,
  selectWatch,
  updateWatchesDueForCommit,
  upsertWatch,
} from './queries.ts';

export type JobCiView = Static<typeof JobCiSchema>;

export const CI_DEFAULT_MAX_FOLLOW_UPS = 2;
export const CI_DEFAULT_WATCH_MINUTES = 30;

/** The project's CI settings with their defaults. */
export function ciSettingsOf(settings: ProjectSettings): {
  mode: 'off' | 'watch' | 'fix';
  maxFollowUps: number;
  watchMinutes: number;
} {
  return {
    mode: settings.ci ?? 'off',
    maxFollowUps: settings.ciMaxFollowUps ?? CI_DEFAULT_MAX_FOLLOW_UPS,
    watchMinutes: settings.ciWatchMinutes ?? CI_DEFAULT_WATCH_MINUTES,
  };
}

/**
 * Starts the job's CI watch for the commit its last pull_request event names, when the project
 * watches CI. Called in the transaction that records a completed run with a pull request.
 */
export async function startCiWatch(tx: Queryable, jobId: string, projectId: string): Promise<boolean> {
  const project = await findProject(tx, projectId);
  if (project === null) return false;
  const settings = ciSettingsOf(project.settings);
  if (settings.mode === 'off') return false;
  const pull = await selectLastPullRequestEvent(tx, jobId);
  if (typeof pull?.headSha !== 'string' || typeof pull.url !== 'string') return false;
  const watch = await upsertWatch(tx, {
    jobId,
    projectId,
    headSha: pull.headSha,
    prUrl: pull.url,
    watchMinutes: settings.watchMinutes,
  });
  if (!watch) return false;
  await insertEvent(tx, jobId, 'ci_status', {
    state: 'watching',
    headSha: watch.head_sha,
    pullRequest: watch.pr_url,
    deadlineAt: watch.deadline_at.toISOString(),
  });
  await notifyWatchStarted(tx, jobId);
  return true;
}

export function toJobCiView(row: CiWatchRow): JobCiView {
  return {
    state: row.state,
    headSha: row.head_sha,
    pullRequest: row.pr_url,
    observed: row.observed,
    checks: row.checks.map((c) => ({
      name: c.name,
      state: c.state === 'success' || c.state === 'failure' ? c.state : 'pending',
      url: c.url,
    })),
    followUps: row.follow_ups,
    polls: row.polls,
    lastError: row.last_error,
    outcome: row.outcome,
    startedAt: row.started_at.toISOString(),
    deadlineAt: row.deadline_at.toISOString(),
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

export async function getJobCi(db: Queryable, projectId: string, jobId: string): Promise<JobCiView> {
  const job = await getJob(db, projectId, jobId);
  const row = await selectWatch(db, job.id);
  if (row === null) {
    const project = await getProject(db, projectId);
    throw jobCiErrors.job_ci_not_found(
      ciSettingsOf(project.settings).mode === 'off'
        ? `Job "${job.id}" has no CI watch: the project's ci setting is off (set it to watch or fix).`
        : `Job "${job.id}" has no CI watch yet: it starts when the job opens or updates its pull request.`,
    );
  }
  return toJobCiView(row);
}

/**
 * A code host's CI webhook (check run, check suite, status, pipeline) told of a commit: the
 * project's watches of that commit are polled now instead of at their next time, and the CI
 * watchers are woken. The webhook's own state is not used: the poll reads the host, as always.
 * Returns the jobs whose watch is polled early (empty when none watches the commit).
 */
export async function requestCiPoll(db: Database, projectId: string, headSha: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const jobs = await updateWatchesDueForCommit(tx, projectId, headSha);
    if (jobs.length > 0) await notifyWatchStarted(tx, jobs[0]!);
    return jobs;
  });
}

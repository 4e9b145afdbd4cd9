// The CI watcher: polls the code host for the checks of the commit each watched job pushed last,
// on the background-work runtime (WorkLoop), without holding a job worker's slot. A watch is
// claimed with a lease (FOR UPDATE SKIP LOCKED), polled once, and either ended (passed, failed,
// timed out, stopped) or put back with its next poll time: at once after the push, then after
// 15 s, 30 s, 1 min, 2 min, and every 2 min until the deadline (ciWatchMinutes).
//
// When the checks fail and the project's ci setting is fix, the job gets a follow-up naming the
// failed checks (prompt.ts) through the same service function as POST .../job/{id}/message, at
// most ciMaxFollowUps times per job; its run pushes to the same branch and pull request, and the
// job worker restarts the watch for the new commit. Host errors (auth, 5xx, timeouts) never fail
// the job: they are recorded on the watch and retried until the deadline.
//
// How the host is asked is not this module's business: readStatus (given by src/main, built from
// the agent's code-host adapters and the project's credentials) answers for one watch.
import type { Database } from '../../../db/database.ts';
import { AppError } from '../../../errors/app-error.ts';
import { WorkLoop } from '../../../runtime/index.ts';
import type { Logger } from '../../../util/logger.ts';
import { scrubSecrets } from '../../../util/logger.ts';
import { getProject, type Project } from '../../projects/index.ts';
import { insertEvent } from '../queries.ts';
import { followUpJob, getJob, type JobServiceConfig } from '../service.ts';
import { ciFollowUpPrompt } from './prompt.ts';
import {
  type CiLease,
  type CiObserved,
  type CiWatchRow,
  claimDueWatches,
  selectNextPollTime,
  updateFollowUpRefused,
  updateWatchEnded,
  updateWatchPolled,
} from './queries.ts';
import { ciSettingsOf } from './service.ts';

export const CI_CHANNEL = 'docwright_ci';

/** What the code host reports for a commit (the code-host contract's CiStatus, structurally). */
export interface CiReading {
  state: 'none' | 'pending' | 'success' | 'failure';
  checks: {
    name: string;
    state: 'pending' | 'success' | 'failure';
    url: string | null;
    details: string | null;
  }[];
}

export interface CiWatchTarget {
  jobId: string;
  projectId: string;
  repositoryUrl: string;
  headSha: string;
}

export type ReadCiStatus = (
  project: Project,
  target: CiWatchTarget,
  signal: AbortSignal,
) => Promise<CiReading>;

export interface CiWatcherOptions {
  db: Database;
  logger: Logger;
  jobs: JobServiceConfig;
  readStatus: ReadCiStatus;
  /** The clock (tests move it past a deadline). */
  now?: () => Date;
  concurrency?: number;
  leaseMs?: number;
  /** The longest the loop sleeps without looking (also catches expired leases). */
  pollIntervalMs?: number;
  /** The wait after the first poll of a commit; it doubles up to maxPollDelayMs. */
  minPollDelayMs?: number;
  maxPollDelayMs?: number;
  /** Told each follow-up sent (a job worker in this process starts it at once). */
  onJobQueued?: (jobId: string) => void;
}

type Checks = CiWatchRow['checks'];

const stored = (reading: CiReading): Checks =>
  reading.checks.map((c) => ({ name: c.name, state: c.state, url: c.url }));

/** A host error in words, without secrets (adapters scrub theirs; this catches the rest). */
function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return scrubSecrets(message).slice(0, 1000);
}

export class CiWatcher {
  readonly #options: Required<Omit<CiWatcherOptions, 'onJobQueued'>> & Pick<CiWatcherOptions, 'onJobQueued'>;
  readonly #loop: WorkLoop<CiWatchRow>;

  constructor(options: CiWatcherOptions) {
    this.#options = {
      now: () => new Date(),
      concurrency: 4,
      leaseMs: 120_000,
      pollIntervalMs: 30_000,
      minPollDelayMs: 15_000,
      maxPollDelayMs: 120_000,
      ...options,
    };
    const { db, logger, leaseMs } = this.#options;
    this.#loop = new WorkLoop<CiWatchRow>({
      concurrency: this.#options.concurrency,
      pollIntervalMs: this.#options.pollIntervalMs,
      notifications: { source: db, channel: CI_CHANNEL },
      claim: (limit) => claimDueWatches(db, this.#options.now(), limit, leaseMs),
      run: (watch, signal) => this.#poll(watch, signal),
      untilNextDueMs: async () => {
        const next = await selectNextPollTime(db);
        return (next?.getTime() ?? Number.POSITIVE_INFINITY) - this.#options.now().getTime();
      },
      onClaimError: (error) =>
        logger.error({ err: error }, 'CI watcher could not claim watches; retrying later'),
      onRunError: (error, watch) =>
        logger.error({ err: error, jobId: watch.job_id }, 'CI watch poll failed; retried after its lease'),
    });
  }

  async start(): Promise<void> {
    await this.#loop.start();
  }

  async stop(graceMs = 5_000): Promise<void> {
    await this.#loop.stop(graceMs);
  }

  /** Look for due watches now (tests call it after moving the clock). */
  wake(): void {
    this.#loop.wake();
  }

  #nextPollAt(polls: number): Date {
    const { minPollDelayMs, maxPollDelayMs } = this.#options;
    const delay = Math.min(minPollDelayMs * 2 ** Math.max(0, polls - 1), maxPollDelayMs);
    return new Date(this.#options.now().getTime() + delay);
  }

  async #poll(watch: CiWatchRow, signal: AbortSignal): Promise<void> {
    const { db, logger } = this.#options;
    const log = logger.child({ jobId: watch.job_id, headSha: watch.head_sha });
    const lease: CiLease = {
      jobId: watch.job_id,
      headSha: watch.head_sha,
      leaseExpiresAt: watch.lease_expires_at!,
    };
    const now = this.#options.now();
    const pastDeadline = now.getTime() >= watch.deadline_at.getTime();
    const end = async (
      state: 'passed' | 'failed' | 'timed_out' | 'stopped',
      observed: CiObserved,
      checks: Checks,
      outcome: string,
      extra: { lastError?: string | null; followUps?: number; polled?: boolean } = {},
    ) => {
      const ended = await updateWatchEnded(db, lease, {
        state,
        observed,
        checks,
        lastError: extra.lastError ?? null,
        outcome,
        followUps: extra.followUps ?? 0,
        polled: extra.polled ?? true,
      });
      if (ended) log.info({ state, outcome }, 'CI watch ended');
      return ended;
    };

    const job = await getJob(db, watch.project_id, watch.job_id);
    const project = await getProject(db, watch.project_id);
    const settings = ciSettingsOf(project.settings);
    if (job.status === 'archived' || settings.mode === 'off') {
      const why =
        job.status === 'archived' ? 'the job was archived' : "the project's ci setting was turned off";
      const ended = await end('stopped', watch.observed, watch.checks, `Stopped: ${why}.`, { polled: false });
      if (ended) await this.#event(ended);
      return;
    }
    if (job.status === 'active') {
      // A follow-up is running; it will likely push a new commit, which restarts the watch.
      if (pastDeadline) {
        const ended = await end(
          'timed_out',
          watch.observed,
          watch.checks,
          'Timed out while a follow-up of the job was running.',
          { polled: false },
        );
        if (ended) await this.#event(ended);
        return;
      }
      await updateWatchPolled(db, lease, {
        observed: watch.observed,
        checks: watch.checks,
        lastError: watch.last_error,
        nextPollAt: this.#nextPollAt(watch.polls),
        polled: false,
      });
      return;
    }

    let reading: CiReading;
    try {
      reading = await this.#options.readStatus(
        project,
        {
          jobId: watch.job_id,
          projectId: watch.project_id,
          repositoryUrl: job.source.repository,
          headSha: watch.head_sha,
        },
        signal,
      );
    } catch (error) {
      // Shutting down: nothing is recorded; the lease runs out and another process polls again.
      if (signal.aborted) return;
      const message = describeError(error);
      log.warn({ error: message }, 'could not read the CI status; trying again later');
      if (pastDeadline) {
        const ended = await end(
          'timed_out',
          'error',
          watch.checks,
          `Timed out: the code host could not be asked (${message}).`,
          {
            lastError: message,
          },
        );
        if (ended) await this.#event(ended);
        return;
      }
      const kept = await updateWatchPolled(db, lease, {
        observed: 'error',
        checks: watch.checks,
        lastError: message,
        nextPollAt: this.#nextPollAt(watch.polls + 1),
        polled: true,
      });
      // One event per run of errors, not one per poll.
      if (kept && (watch.observed !== 'error' || watch.last_error !== message)) {
        await insertEvent(db, watch.job_id, 'ci_status', {
          state: 'watching',
          observed: 'error',
          headSha: watch.head_sha,
          error: message,
        });
      }
      return;
    }

    const checks = stored(reading);
    const failed = reading.checks.filter((c) => c.state === 'failure');
    // The checks decide once none is running; at the deadline, a failure decides even if others still run.
    const failedNow =
      reading.state === 'failure' || (pastDeadline && reading.state === 'pending' && failed.length > 0);
    if (reading.state === 'success') {
      const ended = await end(
        'passed',
        'success',
        checks,
        `Passed: ${checks.length} check${checks.length === 1 ? '' : 's'}.`,
      );
      if (ended) await this.#event(ended);
      return;
    }
    if (failedNow) {
      await this.#failed(watch, project, reading, failed, end);
      return;
    }
    if (pastDeadline) {
      const minutes = Math.round((watch.deadline_at.getTime() - watch.started_at.getTime()) / 60_000);
      const outcome =
        reading.state === 'none'
          ? `Timed out: the code host reported no check for the commit within ${minutes} minutes.`
          : `Timed out: checks still running after ${minutes} minutes (${reading.checks
              .filter((c) => c.state === 'pending')
              .map((c) => c.name)
              .join(', ')}).`;
      const ended = await end('timed_out', reading.state, checks, outcome);
      if (ended) await this.#event(ended);
      return;
    }
    const kept = await updateWatchPolled(db, lease, {
      observed: reading.state,
      checks,
      lastError: null,
      nextPollAt: this.#nextPollAt(watch.polls + 1),
      polled: true,
    });
    if (kept && watch.observed !== reading.state) {
      await insertEvent(db, watch.job_id, 'ci_status', {
        state: 'watching',
        observed: reading.state,
        headSha: watch.head_sha,
        checks,
      });
    }
  }

  async #failed(
    watch: CiWatchRow,
    project: Project,
    reading: CiReading,
    failed: CiReading['checks'],
    end: (
      state: 'failed',
      observed: CiObserved,
      checks: Checks,
      outcome: string,
      extra?: { followUps?: number },
    ) => Promise<CiWatchRow | null>,
  ): Promise<void> {
    const { db } = this.#options;
    const settings = ciSettingsOf(project.settings);
    const names = failed.map((c) => c.name).join(', ');
    const checks = stored(reading);
    const wantsFollowUp = settings.mode === 'fix' && watch.follow_ups < settings.maxFollowUps;
    if (!wantsFollowUp) {
      const why =
        settings.mode !== 'fix'
          ? 'no follow-up (ci is watch)'
          : `no follow-up: ${watch.follow_ups} sent, ciMaxFollowUps is ${settings.maxFollowUps}`;
      const ended = await end('failed', 'failure', checks, `Failed: ${names}; ${why}.`);
      if (ended) await this.#event(ended, { followUp: settings.mode === 'fix' ? 'cap_reached' : 'off' });
      return;
    }
    // Reserved before it is sent: a crash in between costs a follow-up, never exceeds the cap.
    const ended = await end('failed', 'failure', checks, `Failed: ${names}; follow-up sent.`, {
      followUps: 1,
    });
    if (!ended) return;
    const prompt = ciFollowUpPrompt({ headSha: watch.head_sha, pullRequest: watch.pr_url, failed });
    try {
      await followUpJob(db, this.#options.jobs, { projectId: watch.project_id, id: watch.job_id, prompt });
    } catch (error) {
      const reason = error instanceof AppError ? `${error.code}: ${error.message}` : describeError(error);
      const outcome = `Failed: ${names}; the follow-up was refused (${reason}).`;
      await updateFollowUpRefused(db, watch.job_id, watch.head_sha, outcome);
      await this.#event({ ...ended, outcome, follow_ups: ended.follow_ups - 1 }, { followUp: 'refused' });
      return;
    }
    await this.#event(ended, { followUp: 'sent' });
    this.#options.onJobQueued?.(watch.job_id);
  }

  /** The ci_status event of an ended watch. */
  async #event(
    watch: CiWatchRow,
    extra: { followUp?: 'sent' | 'refused' | 'cap_reached' | 'off' } = {},
  ): Promise<void> {
    await insertEvent(this.#options.db, watch.job_id, 'ci_status', {
      state: watch.state,
      headSha: watch.head_sha,
      pullRequest: watch.pr_url,
      checks: watch.checks,
      outcome: watch.outcome,
      followUps: watch.follow_ups,
      ...extra,
    });
  }
}

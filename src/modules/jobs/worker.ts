// The job worker: claims active jobs with a lease, runs them with a JobRunner, and writes the
// outcome. Many workers (threads of one process, or processes on many machines) can share one
// database: claims use FOR NO KEY UPDATE SKIP LOCKED, and every write checks the lease.
//
// Wake-ups: a NOTIFY on 'docwright_jobs' (sent in the transaction that creates, follows up or
// cancels a job) or an in-process nudge() starts work at once; a slow poll catches what a
// notification cannot: leases that ran out because a worker died.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../db/database.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { backoffDelayMs, type RetryPolicy, WorkLoop } from '../../runtime/index.ts';
import type { Logger } from '../../util/logger.ts';
import { scrubSecrets } from '../../util/logger.ts';
import { getProject } from '../projects/index.ts';
import { chargeModelCall, loadPriceTable, type PriceTable } from '../usage/index.ts';
import { startCiWatch } from './ci/service.ts';
import { insertEvent, notifyJobQueued } from './queries.ts';
import type { JobRunner, JobRunResult, JobUsage } from './runner-contract.ts';
import { recordedUsage } from './usage-record.ts';
import {
  claimNextJob,
  failAbandonedJobs,
  finishJob,
  releaseJob,
  renewLease,
  requeueJob,
  selectJobStatus,
  selectPrompts,
  selectRunEvents,
  updateJobBranch,
} from './worker-queries.ts';

/**
 * Waits between tries to write an outcome while the database is away: doubling up to the cap,
 * without jitter. The tries end when the lease would, not after a count.
 */
const OUTCOME_RETRY: RetryPolicy = {
  attempts: Number.POSITIVE_INFINITY,
  baseDelayMs: 250,
  maxDelayMs: 5000,
  jitter: { min: 1, max: 1 },
};

export interface WorkerOptions {
  db: Database;
  runner: JobRunner;
  logger: Logger;
  /** Jobs run at once by this worker. */
  concurrency: number;
  /** How long a claim lasts without a heartbeat; a dead worker's job is retaken after it. */
  leaseMs: number;
  /** Tries per job before it fails with worker_lost. */
  maxAttempts: number;
  /** Fallback poll for expired leases (and missed notifications). */
  pollIntervalMs?: number;
  /** Told each outcome this worker wrote (the metrics). */
  observer?: JobWorkerObserver;
  /** Prices of model calls; defaults to the built-in table (data/model-prices.json). */
  prices?: PriceTable;
}

export interface JobWorkerObserver {
  /** Called once per outcome written; not for runs that were cancelled, taken over or handed back. */
  finished(outcome: { status: 'completed' | 'failed'; code: string | null; usage: JobUsage | null }): void;
}

type ClaimedJob = NonNullable<Awaited<ReturnType<typeof claimNextJob>>>;

interface Running {
  controller: AbortController;
  done: Promise<void>;
  /** Why the run was aborted, when it was. */
  abortReason: 'cancelled' | 'lease_lost' | 'shutdown' | null;
}

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly options: Required<Omit<WorkerOptions, 'observer'>> & Pick<WorkerOptions, 'observer'>;
  private readonly running = new Map<string, Running>();
  private readonly loop: WorkLoop<ClaimedJob>;

  constructor(options: WorkerOptions) {
    this.options = { pollIntervalMs: 2000, ...options, prices: options.prices ?? loadPriceTable() };
    const { db, logger, maxAttempts } = this.options;
    this.loop = new WorkLoop<ClaimedJob>({
      concurrency: this.options.concurrency,
      pollIntervalMs: this.options.pollIntervalMs,
      notifications: {
        source: db,
        channel: 'docwright_jobs',
        intercept: (jobId) => this.onNotification(jobId),
      },
      beforeClaim: () => this.failJobsOutOfTries(),
      // One job per claim, launched before the next is claimed: the first starts soonest.
      claimBatch: 1,
      claim: async () => {
        const job = await claimNextJob(db, { owner: this.id, leaseMs: this.options.leaseMs, maxAttempts });
        return job ? [job] : [];
      },
      run: (job, signal) => this.launch(job, signal),
      onClaimError: (error) =>
        logger.error({ err: error }, 'worker could not claim jobs; retrying at the next poll'),
      // Only the database can fail here (the runner's own failures are outcomes): the lease
      // runs out and the job is taken again.
      onRunError: (error, job) =>
        logger.error({ err: error, jobId: job.id }, 'job run ended without its outcome'),
    });
  }

  get activeJobIds(): string[] {
    return [...this.running.keys()];
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  /** Look for work now (a job was created or re-activated in this process). */
  nudge(): void {
    this.loop.wake();
  }

  /**
   * Stops claiming, waits up to graceMs for running jobs to finish, then aborts the rest and gives
   * them back (another worker takes them at once, without using up a try).
   */
  async stop(graceMs = 10_000): Promise<void> {
    await this.loop.stop(graceMs);
  }

  /** A notification about a job we run means it changed under us (cancel): look now. */
  private onNotification(jobId: string): boolean {
    const run = this.running.get(jobId);
    if (!run) return false;
    void this.checkStillOurs(jobId, run);
    return true;
  }

  private async checkStillOurs(jobId: string, run: Running): Promise<void> {
    try {
      const status = await selectJobStatus(this.options.db, jobId);
      if (status !== 'active' && run.abortReason === null) {
        run.abortReason = 'cancelled';
        run.controller.abort(new Error('job cancelled'));
      }
    } catch (error) {
      this.options.logger.warn({ err: error, jobId }, 'could not check job status');
    }
  }

  private async failJobsOutOfTries(): Promise<void> {
    const { db, logger, maxAttempts } = this.options;
    const lost = await failAbandonedJobs(
      db,
      maxAttempts,
      `The worker running this job stopped ${maxAttempts} times before it finished (crash or kill); giving up.`,
    );
    for (const id of lost) {
      await insertEvent(db, id, 'failed', { code: 'worker_lost' });
      logger.warn({ jobId: id }, 'job failed: worker_lost');
    }
  }

  private launch(job: ClaimedJob, shutdown: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const run: Running = { controller, done: Promise.resolve(), abortReason: null };
    shutdown.addEventListener(
      'abort',
      () => {
        run.abortReason ??= 'shutdown';
        run.controller.abort(new Error('worker shutting down'));
      },
      { once: true },
    );
    // This worker may still be running an earlier try of the same job whose lease ran out before
    // a heartbeat got through (our claim proves it is lost). That try is stopped, and this one
    // starts once it has ended: two tries of a job never share its worktree, and the map keeps
    // one entry per job.
    const previous = this.running.get(job.id);
    if (previous && previous.abortReason === null) {
      previous.abortReason = 'lease_lost';
      previous.controller.abort(new Error('job taken again after its lease ran out'));
    }
    this.running.set(job.id, run);
    run.done = (previous ? previous.done.catch(() => {}) : Promise.resolve())
      .then(() => this.execute(job, run))
      .finally(() => {
        if (this.running.get(job.id) === run) this.running.delete(job.id);
      });
    return run.done;
  }

  private async execute(job: ClaimedJob, run: Running): Promise<void> {
    const log = this.options.logger.child({ jobId: job.id, attempt: job.attempts });
    const cleanups: (() => Promise<void>)[] = [];
    try {
      await this.runAndRecord(job, run, log, (task) => void cleanups.push(task));
    } finally {
      for (const cleanup of cleanups) {
        await cleanup().catch((error) => log.warn({ err: error }, 'cleanup after the job failed'));
      }
    }
  }

  private async runAndRecord(
    job: ClaimedJob,
    run: Running,
    log: Logger,
    deferCleanup: (task: () => Promise<void>) => void,
  ): Promise<void> {
    const { db, leaseMs, runner } = this.options;
    const heartbeat = setInterval(
      () => {
        renewLease(db, job.id, this.id, leaseMs)
          .then((ours) => {
            if (!ours && run.abortReason === null) {
              run.abortReason = 'lease_lost';
              run.controller.abort(new Error('job no longer held by this worker'));
            }
          })
          .catch((error) => log.warn({ err: error }, 'heartbeat failed'));
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    let result: JobRunResult;
    try {
      log.info('job started');
      // Three reads that need nothing of each other: sent at once (on PostgreSQL, one round trip's
      // wait instead of three on the way to the job's first model request).
      const [project, promptRows, runEvents] = await Promise.all([
        getProject(db, job.project_id),
        selectPrompts(db, job.id),
        selectRunEvents(db, job.id),
      ]);
      const prompts = promptRows.map((p) => p.prompt);
      const promptSeq = promptRows.at(-1)?.seq ?? 1;
      const history = historyOf(prompts, runEvents);
      result = await runner({
        job,
        project,
        prompts,
        history,
        attempt: job.attempts,
        earlierTries: earlierTriesOf(runEvents),
        signal: run.controller.signal,
        event: (type, data = {}) => insertEvent(db, job.id, type, data),
        setBranch: (branch) => updateJobBranch(db, job.id, this.id, branch),
        deferCleanup,
        chargeModelCall: (call) =>
          chargeModelCall(db, this.options.prices, {
            projectId: job.project_id,
            jobId: job.id,
            promptSeq,
            call,
            onAlert: (tx, alert) => insertEvent(tx, job.id, 'budget_alert', alert),
          }),
      });
    } catch (error) {
      if (run.abortReason === null && isDatabaseUnavailable(error)) {
        // The database went away under the run: an outage, not the job's fault, so no outcome
        // is written. The job goes back to the queue (or, if the database is still away, its
        // lease runs out) and runs again once the database is back. The try counts: an error
        // that only looked like an outage (a reset connection elsewhere) ends, at worst, in
        // worker_lost after DOCWRIGHT_JOB_MAX_ATTEMPTS, never in a loop.
        clearInterval(heartbeat);
        log.warn({ err: error }, 'database unavailable during the run; the job goes back to the queue');
        const released = await requeueJob(db, job.id, this.id).catch(() => false);
        if (released) await notifyJobQueued(db, job.id).catch(() => {});
        return;
      }
      if (run.abortReason === null) log.error({ err: error }, 'job runner failed unexpectedly');
      result = {
        status: 'failed',
        code: 'internal_error',
        message: `docwright failed while running the job: ${scrubSecrets((error as Error).message ?? String(error))}`,
      };
    } finally {
      clearInterval(heartbeat);
    }

    if (run.abortReason === 'shutdown') {
      const released = await releaseJob(db, job.id, this.id).catch(() => false);
      if (released) {
        await insertEvent(db, job.id, 'released', { reason: 'worker shutdown' }).catch(() => {});
        // Wakes the other workers now; they would otherwise see it only at their next poll.
        await notifyJobQueued(db, job.id).catch(() => {});
      }
      log.info({ released }, 'job released at shutdown');
      return;
    }
    if (run.abortReason !== null) {
      log.info({ reason: run.abortReason }, 'job run stopped');
      return; // cancelled (the cancel already wrote the outcome) or taken over by another worker
    }
    const finished = await this.recordOutcome(job, result, log);
    if (finished === 'unwritten') return;
    if (!finished) {
      log.warn('job changed while running (cancelled or lease lost); outcome not written');
      return;
    }
    log.info({ status: result.status }, 'job finished');
    this.options.observer?.finished({
      status: result.status,
      code: result.status === 'failed' ? result.code : null,
      usage: result.usage ?? null,
    });
  }

  /**
   * Writes the outcome and its event together, or not at all. While the database cannot be
   * reached it tries again, for as long as the lease would have lasted; after that the lease has
   * run out and the job is run again (a new attempt), so nothing is left `active` for good.
   */
  private async recordOutcome(
    job: ClaimedJob,
    result: JobRunResult,
    log: Logger,
  ): Promise<boolean | 'unwritten'> {
    const deadline = Date.now() + this.options.leaseMs;
    for (let tries = 1; ; tries++) {
      try {
        return await this.writeOutcome(job, result);
      } catch (error) {
        const wait = backoffDelayMs(OUTCOME_RETRY, tries);
        if (!isDatabaseUnavailable(error) || this.loop.stopping || Date.now() + wait > deadline) {
          log.error(
            { err: error },
            'could not write the job outcome; the job runs again once its lease runs out',
          );
          return 'unwritten';
        }
        log.warn({ err: error }, 'database unavailable while writing the job outcome; retrying');
        await sleep(wait);
      }
    }
  }

  private async writeOutcome(job: ClaimedJob, result: JobRunResult): Promise<boolean> {
    const finished = await this.options.db.transaction(async (tx) => {
      const row = await finishJob(tx, job.id, this.id, {
        status: result.status,
        prLink: result.prLink ?? null,
        branch: result.branch ?? null,
        summary: result.summary ?? null,
        stopReason: result.stopReason ?? null,
        errorCode: result.status === 'failed' ? result.code : null,
        errorMessage: result.status === 'failed' ? result.message : null,
        usage: recordedUsage(job, result.usage ?? null),
      });
      if (!row) return null;
      await insertEvent(
        tx,
        job.id,
        result.status,
        result.status === 'failed'
          ? { code: result.code, message: result.message }
          : { prLink: result.prLink, stopReason: result.stopReason, summary: result.summary },
      );
      // The pull request's checks are watched from here (docs/ci-follow-up.md).
      if (result.status === 'completed' && result.prLink !== null)
        await startCiWatch(tx, job.id, job.project_id);
      return row;
    });
    return finished !== null;
  }
}

/**
 * Tries of the latest request that started before this one and never ended: their worker died,
 * lost its lease or handed the job back at shutdown, possibly after pushing to the branch. The
 * 'started' event of the try now beginning is the last one and is not counted.
 */
export function earlierTriesOf(events: { type: string }[]): number {
  let started = 0;
  for (const event of events) {
    if (event.type === 'created' || event.type === 'message') started = 0;
    else if (event.type === 'started') started++;
  }
  return Math.max(0, started - 1);
}

/**
 * Pairs each earlier prompt with the summary of the run that answered it: a run starts at a
 * created or message event and ends at the next completed or failed one.
 */
export function historyOf(
  prompts: string[],
  events: { type: string; data: { summary?: string; stopReason?: string } }[],
): { prompt: string; summary: string | null; stoppedBy: string | null }[] {
  const runs: { summary: string | null; stoppedBy: string | null }[] = [];
  for (const event of events) {
    if (event.type === 'created' || event.type === 'message') runs.push({ summary: null, stoppedBy: null });
    else if (runs.length > 0) {
      const run = runs[runs.length - 1]!;
      run.summary ??= event.data.summary ?? null;
      run.stoppedBy ??= event.data.stopReason ?? null;
    }
  }
  return prompts.slice(0, -1).map((prompt, i) => ({
    prompt,
    summary: runs[i]?.summary ?? null,
    stoppedBy: runs[i]?.stoppedBy ?? null,
  }));
}

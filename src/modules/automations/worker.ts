// The automation worker: turns queued runs into jobs, on the background-work runtime (WorkLoop).
// Before each claim round it fires the schedules that are due (one run per due time, however
// long the server was down: the next time is computed from now). A run is claimed with a lease
// (FOR UPDATE SKIP LOCKED), checked against the automation's guardrails (enabled, daily cap,
// open pull requests) and becomes a new job, a follow-up on the automation's open job
// (grouping), or a skipped run that says why.
//
// Wake-ups: NOTIFY on 'docwright_automations' (sent by intake's transaction), a timer for the
// next due run or schedule, and a poll for leases of dead workers.

import type { Database } from '../../db/database.ts';
import { AppError } from '../../errors/app-error.ts';
import { WorkLoop } from '../../runtime/index.ts';
import type { Logger } from '../../util/logger.ts';
import { createJob, followUpJob, type JobServiceConfig } from '../jobs/index.ts';
import type { ReadCodeChange } from './code-change-details.ts';
import { keepTouchingPaths, type PreparedEvents, readCodeChanges } from './code-change-runs.ts';
import { deleteInboundDeliveriesBefore } from './delivery-queries.ts';
import type { ReviewCommentEvent } from './hosts/review-comment-event.ts';
import { queueEvent } from './intake.ts';
import { runPrompt } from './prompt.ts';
import {
  claimDueRuns,
  countRunsStartedSince,
  countRunsStartingNewJobs,
  deferRun,
  markRunSkipped,
  markRunStarted,
  type RunRow,
  reserveRunStart,
  selectAutomationForUpdate,
  selectClaimedRunForUpdate,
  selectDueSchedules,
  selectNextRunDueTime,
  selectNextScheduleTime,
  selectOpenJobs,
  updateNextRunAt,
} from './queries.ts';
import { reviewCommentDecision } from './review-comment.ts';
import { type ReadBranchLines, reviewCommentPrompt } from './review-comment-prompt.ts';
import type { CommentedJob } from './review-comment-queries.ts';
import { nextDueTime } from './schedule.ts';

export const AUTOMATIONS_CHANNEL = 'docwright_automations';

/** How long a run waits for the open job it would follow up (grouping) to end before looking again. */
const WAIT_FOR_ACTIVE_JOB_MS = 30_000;

/**
 * Code hosts' delivery ids are kept this long (GitHub, GitLab and Gitea redeliver within days),
 * then pruned by the worker, at most once per PRUNE_INTERVAL_MS, PRUNE_BATCH rows per statement.
 */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const PRUNE_BATCH = 1_000;
const PRUNE_MAX_BATCHES = 20;

export interface AutomationWorkerOptions {
  db: Database;
  logger: Logger;
  jobs: JobServiceConfig;
  /** The clock (tests move it). */
  now?: () => Date;
  /** Runs handled at once. */
  concurrency?: number;
  leaseMs?: number;
  pollIntervalMs?: number;
  /** Told each job a run created or followed up (a worker in this process starts it at once). */
  onJobQueued?: (jobId: string) => void;
  /**
   * Reads the commented lines of a file on a job's branch for a review_comment follow-up (through
   * the git mirror; src/main passes it). Without it the prompt names the lines without quoting them.
   */
  readBranchLines?: ReadBranchLines;
  /**
   * Reads a code change's files and diff from the watched repository (and makes its commit
   * readable by the job's code tools). Without it, code_change runs use what the webhook said.
   */
  readCodeChange?: ReadCodeChange;
}

type OptionalReaders = 'onJobQueued' | 'readBranchLines' | 'readCodeChange';

export class AutomationWorker {
  readonly #options: Required<Omit<AutomationWorkerOptions, OptionalReaders>> &
    Pick<AutomationWorkerOptions, OptionalReaders>;
  readonly #loop: WorkLoop<RunRow>;
  #prunedAt = 0;

  constructor(options: AutomationWorkerOptions) {
    this.#options = {
      now: () => new Date(),
      concurrency: 4,
      leaseMs: 60_000,
      pollIntervalMs: 5_000,
      ...options,
    };
    const { db, logger, leaseMs } = this.#options;
    this.#loop = new WorkLoop<RunRow>({
      concurrency: this.#options.concurrency,
      pollIntervalMs: this.#options.pollIntervalMs,
      notifications: { source: db, channel: AUTOMATIONS_CHANNEL },
      beforeClaim: async () => {
        await this.fireDueSchedules();
        await this.#pruneDeliveriesNowAndThen();
      },
      // One run per claim: two runs of one automation checked at once could both pass its caps.
      claimBatch: 1,
      claim: (limit) => claimDueRuns(db, this.#options.now(), limit, leaseMs),
      run: (run) => this.#handle(run),
      untilNextDueMs: async () => {
        const [run, schedule] = await Promise.all([selectNextRunDueTime(db), selectNextScheduleTime(db)]);
        const next = Math.min(run?.getTime() ?? Infinity, schedule?.getTime() ?? Infinity);
        return next - this.#options.now().getTime();
      },
      onClaimError: (error) =>
        logger.error({ err: error }, 'automation worker could not claim runs; retrying later'),
      onRunError: (error, run) =>
        logger.error(
          { err: error, runId: run.id },
          'automation run failed unexpectedly; retried after its lease',
        ),
    });
  }

  async start(): Promise<void> {
    await this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }

  /** Look for due runs and schedules now (tests call it after moving the clock). */
  wake(): void {
    this.#loop.wake();
  }

  /**
   * Deletes the delivery ids received more than DELIVERY_RETENTION_MS ago, in batches; returns
   * how many went. The worker calls it at most once an hour.
   */
  async pruneDeliveries(): Promise<number> {
    const before = new Date(this.#options.now().getTime() - DELIVERY_RETENTION_MS);
    let total = 0;
    for (let i = 0; i < PRUNE_MAX_BATCHES; i++) {
      const deleted = await deleteInboundDeliveriesBefore(this.#options.db, before, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    return total;
  }

  async #pruneDeliveriesNowAndThen(): Promise<void> {
    const at = this.#options.now().getTime();
    if (at - this.#prunedAt < PRUNE_INTERVAL_MS) return;
    this.#prunedAt = at;
    try {
      const deleted = await this.pruneDeliveries();
      if (deleted > 0) this.#options.logger.info({ deleted }, 'pruned old webhook delivery ids');
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'could not prune old webhook delivery ids');
    }
  }

  /** Queues one run for each schedule due now and moves it to its next time; returns the runs. */
  async fireDueSchedules(): Promise<string[]> {
    const now = this.#options.now();
    return this.#options.db.transaction(async (tx) => {
      const runs: string[] = [];
      for (const automation of await selectDueSchedules(tx, now, 100)) {
        const dueAt = automation.next_run_at!;
        const trigger = automation.trigger;
        // From now, not from the due time: a downtime that missed many times fires once.
        const next =
          trigger.type === 'schedule' ? nextDueTime(trigger.cron!, trigger.timezone ?? 'UTC', now) : null;
        await updateNextRunAt(tx, automation.id, next);
        const queued = await queueEvent(
          tx,
          automation,
          { type: 'schedule', scheduledFor: dueAt.toISOString(), firedAt: now.toISOString() },
          `schedule:${dueAt.toISOString()}`,
          now,
        );
        if (!queued.duplicate) runs.push(queued.runId);
      }
      return runs;
    });
  }

  async #handle(run: RunRow): Promise<void> {
    const { db, logger } = this.#options;
    const log = logger.child({ runId: run.id, automationId: run.automation_id });
    // Fetching the code happens before the transaction: it may take seconds, and holds no lock.
    const read = this.#options.readCodeChange;
    const code: PreparedEvents | null =
      run.trigger_type === 'code_change' && read
        ? await readCodeChanges(read, run.project_id, run.context.events)
        : null;
    const decision = await db.transaction(async (tx) => {
      const current = await selectClaimedRunForUpdate(tx, run.id, run.attempts);
      if (current === null) return null; // taken over after our lease ran out
      const automation = await selectAutomationForUpdate(tx, run.automation_id);
      if (automation === null) return null; // deleted: its runs went with it
      const now = this.#options.now();
      const skip = async (reason: string) => {
        await markRunSkipped(tx, run.id, reason);
        return { kind: 'skipped' as const, reason };
      };
      if (!automation.enabled) return skip('the automation is disabled');
      if (code !== null && !code.ok) return skip(code.reason);
      const kept = code === null ? null : keepTouchingPaths(automation.trigger, code);
      if (code !== null && kept === null) {
        const paths = automation.trigger.type === 'code_change' ? (automation.trigger.paths ?? []) : [];
        return skip(`no changed file is under the trigger's paths (${paths.join(', ')})`);
      }
      const codeSource = kept?.codeSource ?? null;
      const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      // The automation's row is locked, and a run that passes reserves its start (started_at)
      // before this transaction ends: another worker deciding a run of the same automation waits
      // for the lock, then counts this one, though its job is created after the commit.
      const startedToday = await countRunsStartedSince(tx, automation.id, dayStart, run.id);
      if (startedToday >= automation.limits.dailyRunCap) {
        return skip(
          `daily run cap reached: ${startedToday} runs started today (UTC), cap ${automation.limits.dailyRunCap}`,
        );
      }
      if (current.trigger_type === 'review_comment') {
        const review = await reviewCommentDecision(tx, automation, current);
        if (review.kind === 'skip') return skip(review.reason);
        if (review.kind === 'wait') {
          await deferRun(tx, run.id, new Date(now.getTime() + WAIT_FOR_ACTIVE_JOB_MS));
          return { kind: 'deferred' as const, reason: review.reason };
        }
        await reserveRunStart(tx, run.id, now, true);
        return {
          kind: 'review' as const,
          jobId: review.job.id,
          job: review.job,
          event: review.event,
          automation,
          projectId: automation.project_id,
        };
      }
      const open = await selectOpenJobs(tx, automation.id);
      const starting = await countRunsStartingNewJobs(tx, automation.id, run.id);
      const prompt = runPrompt(
        automation,
        kept === null ? current : { ...current, context: { events: kept.events } },
        codeSource,
      );
      if (automation.limits.grouping && open.length > 0) {
        const latest = open[0]!;
        if (latest.status === 'active') {
          await deferRun(tx, run.id, new Date(now.getTime() + WAIT_FOR_ACTIVE_JOB_MS));
          return { kind: 'deferred' as const, reason: `its open job ${latest.id} is still running` };
        }
        await reserveRunStart(tx, run.id, now, true);
        return {
          kind: 'follow-up' as const,
          jobId: latest.id,
          prompt,
          projectId: automation.project_id,
          codeSource,
        };
      }
      if (automation.limits.grouping && starting > 0) {
        // Another run is creating the job this one should follow up: wait for it.
        await deferRun(tx, run.id, new Date(now.getTime() + WAIT_FOR_ACTIVE_JOB_MS));
        return { kind: 'deferred' as const, reason: 'another run of the automation is starting its job' };
      }
      if (open.length + starting >= automation.limits.maxOpenPullRequests) {
        const starts = starting > 0 ? ` and ${starting} being started` : '';
        return skip(
          `${open.length} open pull requests or running jobs${starts} (max ${automation.limits.maxOpenPullRequests}): ${open.map((j) => j.id).join(', ')}`,
        );
      }
      await reserveRunStart(tx, run.id, now, false);
      return { kind: 'create' as const, prompt, projectId: automation.project_id, codeSource };
    });
    if (decision === null) return;
    if (decision.kind === 'skipped' || decision.kind === 'deferred') {
      log.info({ reason: decision.reason }, `automation run ${decision.kind}`);
      return;
    }
    // The job is written in its own transaction (the jobs service owns it); the run is marked
    // after. A crash between the two leaves the run queued: its next try finds the same job
    // through the idempotency key, so it never makes two.
    try {
      const prompt =
        decision.kind === 'review'
          ? await this.#reviewPrompt(run, decision.automation, decision.job, decision.event)
          : decision.prompt;
      const job =
        decision.kind === 'create'
          ? (
              await createJob(db, this.#options.jobs, {
                projectId: decision.projectId,
                prompt,
                idempotencyKey: `automation-run:${run.id}`,
                codeSource: decision.codeSource,
              })
            ).job
          : await followUpJob(db, this.#options.jobs, {
              projectId: decision.projectId,
              id: decision.jobId,
              prompt,
              codeSource: decision.kind === 'follow-up' ? decision.codeSource : null,
            });
      await markRunStarted(db, run.id, job.id, decision.kind !== 'create', this.#options.now());
      if (job.status === 'active') this.#options.onJobQueued?.(job.id);
      log.info({ jobId: job.id, followUp: decision.kind !== 'create' }, 'automation run started a job');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const retryAfterS = Number(error.headers['retry-after'] ?? 0);
      if (error.code === 'rate_limited' || error.code === 'job_active') {
        const waitMs = Math.max(retryAfterS * 1000, WAIT_FOR_ACTIVE_JOB_MS);
        await deferRun(db, run.id, new Date(this.#options.now().getTime() + waitMs));
        log.info({ code: error.code }, 'automation run deferred');
        return;
      }
      await markRunSkipped(db, run.id, `the job could not be started: ${error.message}`);
      log.warn({ code: error.code }, 'automation run skipped');
    }
  }

  #reviewPrompt(
    run: RunRow,
    automation: Parameters<typeof reviewCommentPrompt>[1]['automation'],
    job: CommentedJob,
    event: ReviewCommentEvent,
  ): Promise<string> {
    return reviewCommentPrompt(this.#options.db, {
      automation,
      run,
      job,
      event,
      ...(this.#options.readBranchLines ? { readLines: this.#options.readBranchLines } : {}),
    });
  }
}

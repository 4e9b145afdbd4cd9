// What the worker hands to whatever runs a job (the agent: workspace, model loop, publishing),
// and what it expects back. The worker owns the job row; the runner never writes it directly.
import type { JobEventType, JobFailureCode } from '../../contract/index.ts';
import type { Project } from '../projects/index.ts';
import type { ModelCallCharge, ModelCallUsage } from '../usage/index.ts';
import type { JobRow } from './queries.ts';

export interface JobRunInput {
  job: JobRow;
  project: Project;
  /** Every prompt the job received, oldest first; the last is the one to act on now. */
  prompts: string[];
  /** Earlier runs of this job (follow-ups): each prompt with the summary its run ended with. */
  history: { prompt: string; summary: string | null; stoppedBy: string | null }[];
  /** 1 on the first try; more when an earlier worker died while running it. */
  attempt: number;
  /**
   * Tries of the same request that started before this one and did not finish (a worker died or
   * handed the job back at shutdown). Their work may already be on the job's branch.
   */
  earlierTries: number;
  /** Aborted on cancel, on a lost lease, and on shutdown: stop promptly and return. */
  signal: AbortSignal;
  /** Stores a progress event (tool call, commit, push, PR opened...) for the job's event stream. */
  event(type: JobEventType, data?: object): Promise<void>;
  /** Records the job's branch as soon as it is known. */
  setBranch(branch: string): Promise<void>;
  /**
   * Runs `task` once the outcome is recorded, so a client sees the job end without waiting for
   * it (removing the worktree). The worker holds the job's slot until it has run: a later try of
   * the job in this process starts after it, and a graceful stop waits for it. Without this hook
   * the runner does such work before returning.
   */
  deferCleanup?(task: () => Promise<void>): void;
  /**
   * Prices one model call when it has ended, stores it, and counts it against the project's
   * budget and the job's cap: the answer says what it cost and whether the run must stop. Absent:
   * calls are not priced (the job's costUsd is null).
   */
  chargeModelCall?(call: ModelCallUsage): Promise<ModelCallCharge>;
}

export interface JobUsage {
  inputTokens: number;
  outputTokens: number;
  steps: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** The run's cost; null when a call had no price. */
  costUsd?: number | null;
}

export type JobRunResult =
  | {
      status: 'completed';
      /** Null exactly when no file changed. */
      prLink: string | null;
      branch: string | null;
      summary: string | null;
      stopReason: string | null;
      usage: JobUsage | null;
    }
  | {
      status: 'failed';
      code: JobFailureCode;
      message: string;
      prLink?: string | null;
      branch?: string | null;
      summary?: string | null;
      stopReason?: string | null;
      usage?: JobUsage | null;
    };

export type JobRunner = (input: JobRunInput) => Promise<JobRunResult>;

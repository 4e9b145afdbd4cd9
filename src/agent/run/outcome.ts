// The record phase: what a run hands the worker to record, from the model's outcome and the pull
// request, or from a failure. Every failure becomes a job failure code with a message that names
// the cause and holds no secret.
import type { PullRequestResult } from '../../code-hosts/contract.ts';
import { CodeHostError } from '../../code-hosts/contract.ts';
import type { JobFailureCode } from '../../contract/index.ts';
import { ModelFailure } from '../../models/errors.ts';
import type { JobRunResult, JobUsage } from '../../modules/jobs/index.ts';
import { DocsChecksFailure } from '../checks/failure.ts';
import type { AgentOutcome, StopReason } from '../loop.ts';
import { nothingChangedNote, stopNote } from '../pull-request-text.ts';
import { WorkspaceFailure } from '../workspace/failures.ts';

const BOUNDS: readonly StopReason[] = ['max_steps', 'max_tokens', 'wall_time', 'stuck', 'no_more_tool_calls'];

/** A run that reached its end: published in `pullRequest`, or with nothing to publish (null). */
export function finishedRun(
  outcome: AgentOutcome,
  pullRequest: PullRequestResult | null,
  branch: string,
): JobRunResult {
  const usage = outcome.usage;
  if (outcome.stoppedBy === 'cost_cap' || outcome.stoppedBy === 'monthly_budget') {
    return spendStoppedRun(outcome, pullRequest, branch);
  }
  if (pullRequest === null) {
    // Stopped by a bound before changing anything: the job did not do what it was asked.
    if (BOUNDS.includes(outcome.stoppedBy) && outcome.stoppedBy !== 'no_more_tool_calls') {
      return {
        status: 'failed',
        code: 'limit_reached',
        message: nothingChangedNote(outcome.stoppedBy),
        usage,
        stopReason: outcome.stoppedBy,
        summary: outcome.summary ?? null,
      };
    }
    return {
      status: 'completed',
      prLink: null,
      branch: null,
      summary: outcome.summary ?? outcome.finalText ?? null,
      stopReason: outcome.stoppedBy,
      usage,
    };
  }
  const note = stopNote(outcome.stoppedBy);
  return {
    status: 'completed',
    prLink: pullRequest.url,
    branch,
    summary: [outcome.summary?.trim(), note].filter(Boolean).join('\n\n') || null,
    stopReason: outcome.stoppedBy,
    usage,
  };
}

/**
 * A run a spending bound stopped: it fails (limit_reached, the message naming the bound), and
 * keeps its work: what changed was published before, and the pull request is linked.
 */
function spendStoppedRun(
  outcome: AgentOutcome,
  pullRequest: PullRequestResult | null,
  branch: string,
): JobRunResult {
  const limit = outcome.stoppedBy === 'cost_cap' ? 'jobCostCapUsd' : 'monthlyBudgetUsd';
  const spent = outcome.stopMessage ?? `The run reached a spending bound (${limit}).`;
  const kept =
    pullRequest === null
      ? 'It had changed no file yet.'
      : `The work so far is on the pull request ${pullRequest.url}.`;
  return {
    status: 'failed',
    code: 'limit_reached',
    message: `Stopped by ${outcome.stoppedBy} (${limit}): ${spent} ${kept}`,
    prLink: pullRequest?.url ?? null,
    branch: pullRequest === null ? null : branch,
    summary: outcome.summary ?? null,
    stopReason: outcome.stoppedBy,
    usage: outcome.usage,
  };
}

export function cancelledRun(usage: JobUsage | null): JobRunResult {
  return { status: 'failed', code: 'cancelled', message: 'Cancelled while running.', usage };
}

/** A failure the job reports (a model, workspace or code-host failure); null for anything else. */
export function asFailure(error: unknown): { code: JobFailureCode; message: string } | null {
  if (error instanceof ModelFailure) return { code: error.code, message: error.message };
  if (error instanceof WorkspaceFailure) return { code: error.code, message: error.message };
  if (error instanceof CodeHostError) return { code: error.code, message: error.message };
  if (error instanceof DocsChecksFailure) return { code: error.code, message: error.message };
  return null;
}

// The loop's own check before publishing: when the run ended by itself (finish, or no more tool
// calls) and the docs checks find problems it introduced, the model gets a bounded fix turn, up
// to MAX_FIX_TURNS times, each within what is left of the run's step, token and time bounds.
import type { ModelMessage } from 'ai';
import type { DocsCheckResult } from '../../docs-checks/index.ts';
import type { AgentInstructions } from '../instructions.ts';
import type { AgentLimits } from '../limits.ts';
import type { AgentOutcome } from '../loop.ts';
import type { JobDocsChecks } from './job-checks.ts';
import { fixRequest } from './problem-text.ts';

export const MAX_FIX_TURNS = 2;
/** Steps one fix turn may take at most. */
export const FIX_TURN_STEPS = 12;
/** A fix turn is not started with less time than this left. */
const MIN_FIX_TIME_MS = 10_000;

export interface FixTurnsInput {
  checks: JobDocsChecks;
  instructions: AgentInstructions;
  limits: AgentLimits;
  /** When the run started (Date.now()), for what is left of its wall time. */
  startedAt: number;
  outcome: AgentOutcome;
  /** Runs the agent again with these instructions and limits (runAgent with the run's tools). */
  turn(instructions: AgentInstructions, limits: AgentLimits): Promise<AgentOutcome>;
  log(error: unknown): void;
}

/** The run's outcome after any fix turns, and the last check's result (null when it could not run). */
export async function checkAndFix(
  input: FixTurnsInput,
): Promise<{ outcome: AgentOutcome; result: DocsCheckResult | null }> {
  let outcome = input.outcome;
  let messages: ModelMessage[] = [...input.instructions.messages, ...(outcome.responseMessages ?? [])];
  let result = await safely(input, () => input.checks.run('publish'));
  for (let turn = 0; turn < MAX_FIX_TURNS; turn++) {
    if (result === null || result.introduced.length === 0) break;
    if (outcome.stoppedBy !== 'finish' && outcome.stoppedBy !== 'no_more_tool_calls') break;
    if (outcome.responseMessages === undefined) break;
    const limits = remaining(input, outcome);
    if (limits === null) break;
    messages = [...messages, { role: 'user', content: fixRequest(result) }];
    const fixed = await input.turn({ system: input.instructions.system, messages }, limits);
    messages = [...messages, ...(fixed.responseMessages ?? [])];
    outcome = merge(outcome, fixed);
    result = await safely(input, () => input.checks.run('after_fix'));
  }
  return { outcome, result };
}

function remaining(input: FixTurnsInput, outcome: AgentOutcome): AgentLimits | null {
  const { limits } = input;
  const steps = Math.min(FIX_TURN_STEPS, limits.maxSteps - outcome.usage.steps);
  const tokens = limits.maxTotalTokens - outcome.usage.inputTokens - outcome.usage.outputTokens;
  const time = limits.wallTimeMs - (Date.now() - input.startedAt);
  // Two steps at least: one to fix, and the forced finish the loop keeps for the last step.
  if (steps < 2 || tokens <= 0 || time < MIN_FIX_TIME_MS) return null;
  return { ...limits, maxSteps: steps, maxTotalTokens: tokens, wallTimeMs: time };
}

function merge(first: AgentOutcome, fix: AgentOutcome): AgentOutcome {
  const ended = fix.stoppedBy === 'finish' || fix.stoppedBy === 'no_more_tool_calls';
  return {
    stoppedBy: ended ? (fix.stoppedBy === 'finish' ? 'finish' : first.stoppedBy) : fix.stoppedBy,
    ...((fix.title ?? first.title) !== undefined ? { title: fix.title ?? first.title } : {}),
    ...((fix.summary ?? first.summary) !== undefined ? { summary: fix.summary ?? first.summary } : {}),
    ...((fix.finalText ?? first.finalText) !== undefined
      ? { finalText: fix.finalText ?? first.finalText }
      : {}),
    usage: {
      inputTokens: first.usage.inputTokens + fix.usage.inputTokens,
      outputTokens: first.usage.outputTokens + fix.usage.outputTokens,
      steps: first.usage.steps + fix.usage.steps,
      cacheReadTokens: first.usage.cacheReadTokens + fix.usage.cacheReadTokens,
      cacheWriteTokens: first.usage.cacheWriteTokens + fix.usage.cacheWriteTokens,
      // Unknown once any step had no price, as in one run.
      costUsd:
        first.usage.costUsd === null || fix.usage.costUsd === null
          ? null
          : first.usage.costUsd + fix.usage.costUsd,
    },
    model: fix.model,
    // A fix turn can be stopped by a spending bound; the first run, ended by itself, was not.
    ...(fix.stopMessage !== undefined ? { stopMessage: fix.stopMessage } : {}),
    ...(fix.responseMessages !== undefined ? { responseMessages: fix.responseMessages } : {}),
  };
}

/** A check that cannot run (a git failure reading the base) must not fail the job: it is logged. */
async function safely(
  input: FixTurnsInput,
  run: () => Promise<DocsCheckResult>,
): Promise<DocsCheckResult | null> {
  try {
    return await run();
  } catch (error) {
    input.log(error);
    return null;
  }
}

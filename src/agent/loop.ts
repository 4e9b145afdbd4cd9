// The agent's tool loop on the Vercel AI SDK: the model calls tools step after step until it calls
// finish, stops calling tools, or a bound ends the run (steps, tokens, wall time, a stuck model,
// a cancel). Bounds are outcomes, not errors: the caller publishes the work done so far and says
// which bound stopped it. Only model failures throw (ModelFailure, code model_error).
//
// Tools report failure by throwing (the AI SDK turns that into a tool-error the model reads);
// tools that return a failure value instead can be recognised with isFailedToolOutput.
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  type PrepareStepFunction,
  type StepResult,
  type StopCondition,
  streamText,
  ToolChoiceViolationError,
  type ToolSet,
} from 'ai';
import { modelFailureFrom } from '../models/classify.ts';
import { redactSecrets } from '../models/redact.ts';
import type { AgentInstructions } from './instructions.ts';
import { FINISH_TOOL_NAME } from './instructions.ts';
import type { AgentLimits } from './limits.ts';

export type StopReason =
  | 'finish'
  | 'no_more_tool_calls'
  | 'max_steps'
  | 'max_tokens'
  | 'wall_time'
  | 'stuck'
  | 'cancelled'
  // Spending bounds, reported by the step callback (the job's cost cap, the project's month).
  | 'cost_cap'
  | 'monthly_budget';

export interface AgentUsage {
  /** All input tokens, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  steps: number;
  /** Of inputTokens: read from and written into the provider's prompt cache. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The steps' costs as the step callback priced them; null once a step had no price. */
  costUsd: number | null;
}

/** What the step callback may answer: the step's cost, and whether spending must stop the run. */
export interface StepVerdict {
  costUsd?: number | null;
  stop?: 'cost_cap' | 'monthly_budget' | null;
  /** Names the spending bound and the amount, for the job's failure. */
  stopMessage?: string | null;
}

export interface AgentOutcome {
  stoppedBy: StopReason;
  /** From the finish call (also when it was the forced last step of a run at max_steps). */
  title?: string;
  summary?: string;
  /** The model's last text, for a run that ended without finish. */
  finalText?: string;
  usage: AgentUsage;
  /** provider:model, the model actually used. */
  model: string;
  /** For a run stopped by a spending bound: which, and how much was spent. */
  stopMessage?: string;
  /** The messages of the run's steps (assistant and tool), for a turn that continues it. */
  responseMessages?: ModelMessage[];
}

export interface AgentToolCallEvent {
  toolCallId: string;
  toolName: string;
  /** The file the call is about (path, or from for a move), when its arguments name one. */
  path?: string;
  /** The destination of a move. */
  to?: string;
  /** The glob or regex of list_files / search. */
  pattern?: string;
  ok: boolean;
  /** The tool's error message (secrets removed, shortened) when it failed. */
  error?: string;
}

export interface AgentStepEvent {
  /** 1 for the first step. */
  step: number;
  text: string;
  toolCalls: AgentToolCallEvent[];
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  /** The run's totals including this step. */
  totalUsage: AgentUsage;
}

export interface RunAgentInput {
  model: LanguageModel;
  /** provider:model for the outcome; defaults to the model's provider and id. */
  modelName?: string;
  tools: ToolSet;
  instructions: AgentInstructions;
  limits: AgentLimits;
  /** Cancel: aborts the model call in flight. */
  signal?: AbortSignal;
  /** Stream the model's answers (SSE) instead of waiting for whole JSON answers. */
  streaming?: boolean;
  /**
   * Called after each step, awaited before the next one. It must handle its own errors: the AI
   * SDK ignores what a step callback throws, so the run goes on.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing stays valid.
  onStep?: (event: AgentStepEvent) => void | StepVerdict | Promise<void | StepVerdict>;
  /** For tools that return a failure instead of throwing. */
  isFailedToolOutput?: (toolName: string, output: unknown) => boolean;
  /** Values to remove from error messages (keys, tokens in play). */
  secrets?: readonly string[];
}

const MAX_EVENT_ERROR_CHARS = 500;

export async function runAgent(input: RunAgentInput): Promise<AgentOutcome> {
  const { limits } = input;
  const modelName = input.modelName ?? nameOf(input.model);
  const hasFinishTool = FINISH_TOOL_NAME in input.tools;

  const wallClock = new AbortController();
  const timer = setTimeout(
    () => wallClock.abort(new DOMException('The run reached its wall-time bound.', 'TimeoutError')),
    limits.wallTimeMs,
  );
  const signal = input.signal ? AbortSignal.any([input.signal, wallClock.signal]) : wallClock.signal;
  const abortedBy = (): StopReason | null =>
    input.signal?.aborted ? 'cancelled' : wallClock.signal.aborted ? 'wall_time' : null;

  const steps: StepResult<ToolSet>[] = [];
  const usage: AgentUsage = {
    inputTokens: 0,
    outputTokens: 0,
    steps: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
  // Set by the step callback; an object, so reads after the run see what the callback wrote.
  const spend: { stop: { reason: 'cost_cap' | 'monthly_budget'; message: string | null } | null } = {
    stop: null,
  };
  let finishForced = false;
  let forcedFinishIgnored = false;
  let responseMessages: ModelMessage[] | undefined;

  const judge = (done: StepResult<ToolSet>[]) =>
    decideStop(done, {
      limits,
      abortedBy: abortedBy(),
      isFailedToolOutput: input.isFailedToolOutput,
      spendStop: spend.stop?.reason ?? null,
    });
  const stopWhen: StopCondition<ToolSet> = ({ steps: done }) => judge(done) !== null;

  // On the last step the bound allows, only finish is offered, so a run cut by max_steps still
  // ends with a title and summary for its pull request.
  const prepareStep: PrepareStepFunction<ToolSet> = ({ stepNumber }) => {
    if (!hasFinishTool || stepNumber !== limits.maxSteps - 1 || limits.maxSteps < 2) return undefined;
    finishForced = true;
    return { activeTools: [FINISH_TOOL_NAME], toolChoice: { type: 'tool', toolName: FINISH_TOOL_NAME } };
  };

  const onStepEnd = async (step: StepResult<ToolSet>) => {
    steps.push(step);
    const inputTokens = step.usage.inputTokens ?? 0;
    const outputTokens = step.usage.outputTokens ?? 0;
    const cacheReadTokens = step.usage.inputTokenDetails?.cacheReadTokens ?? 0;
    const cacheWriteTokens = step.usage.inputTokenDetails?.cacheWriteTokens ?? 0;
    usage.inputTokens += inputTokens;
    usage.outputTokens += outputTokens;
    usage.cacheReadTokens += cacheReadTokens;
    usage.cacheWriteTokens += cacheWriteTokens;
    usage.steps += 1;
    const verdict = await input.onStep?.({
      step: usage.steps,
      text: step.text,
      toolCalls: toolCallEvents(step, input),
      usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens },
      totalUsage: { ...usage },
    });
    const stepCost = verdict ? verdict.costUsd : null;
    // Kept to 10 decimals, as the calls are stored, so the run's cost equals the sum of its calls.
    usage.costUsd =
      usage.costUsd === null || stepCost === null || stepCost === undefined
        ? null
        : Math.round((usage.costUsd + stepCost) * 1e10) / 1e10;
    if (verdict?.stop) spend.stop ??= { reason: verdict.stop, message: verdict.stopMessage ?? null };
  };

  const common = {
    model: input.model,
    tools: input.tools,
    instructions: input.instructions.system,
    messages: input.instructions.messages,
    stopWhen,
    prepareStep,
    onStepEnd,
    abortSignal: signal,
    // Retries live in the model (src/models/retry.ts); two layers would multiply the waits.
    maxRetries: 0,
  };

  try {
    if (input.streaming) {
      let streamError: unknown = null;
      const result = streamText({
        ...common,
        onError: ({ error }) => {
          streamError ??= error;
        },
      });
      await result.consumeStream();
      if (streamError !== null && abortedBy() === null) throw streamError;
      if (streamError === null) responseMessages = (await result.response).messages;
    } else {
      responseMessages = (await generateText(common)).response.messages;
    }
  } catch (error) {
    // A model (or server) that ignores the forced finish on the last step has still used the
    // last step: the run ends at max_steps, without a title.
    if (finishForced && ToolChoiceViolationError.isInstance(error)) {
      usage.steps += 1;
      forcedFinishIgnored = true;
    }
    // After a cancel or the wall-time bound, whatever the call threw is the abort's doing.
    else if (abortedBy() === null) {
      const failure = modelFailureFrom(error, { modelName, secrets: input.secrets ?? [] });
      if (failure !== null) throw failure.withUsage({ ...usage });
      throw error;
    }
  } finally {
    clearTimeout(timer);
  }

  const stoppedBy = forcedFinishIgnored ? 'max_steps' : (judge(steps) ?? abortedBy() ?? 'no_more_tool_calls');
  const finish = finishCall(steps.at(-1), input.isFailedToolOutput);
  const finalText = [...steps].reverse().find((s) => s.text.trim() !== '')?.text;
  return {
    stoppedBy: stoppedBy === 'finish' && finishForced ? 'max_steps' : stoppedBy,
    ...(finish?.title !== undefined ? { title: finish.title } : {}),
    ...(finish?.summary !== undefined ? { summary: finish.summary } : {}),
    ...(finalText !== undefined ? { finalText } : {}),
    usage: { ...usage },
    model: modelName,
    ...(spend.stop?.message ? { stopMessage: spend.stop.message } : {}),
    ...(responseMessages !== undefined ? { responseMessages } : {}),
  };
}

interface StopContext {
  limits: AgentLimits;
  abortedBy: StopReason | null;
  /** A spending bound the step callback reported. */
  spendStop: 'cost_cap' | 'monthly_budget' | null;
  isFailedToolOutput: RunAgentInput['isFailedToolOutput'];
}

/** Why the run must stop after these steps, or null to go on. Order matters: see each line. */
function decideStop(steps: StepResult<ToolSet>[], context: StopContext): StopReason | null {
  const last = steps.at(-1);
  if (last === undefined) return null;
  // A finished run counts as finished even if it also touched a bound on the way.
  if (finishCall(last, context.isFailedToolOutput) !== null) return 'finish';
  if (context.abortedBy !== null) return context.abortedBy;
  // A model that answered without tools ended the run itself.
  if (last.toolCalls.length === 0) return 'no_more_tool_calls';
  // Money spent is spent: a spending bound stops the run before the other bounds are weighed.
  if (context.spendStop !== null) return context.spendStop;
  if (isStuck(steps, context)) return 'stuck';
  const tokens = steps.reduce((n, s) => n + (s.usage.inputTokens ?? 0) + (s.usage.outputTokens ?? 0), 0);
  if (tokens >= context.limits.maxTotalTokens) return 'max_tokens';
  if (steps.length >= context.limits.maxSteps) return 'max_steps';
  return null;
}

interface CallRecord {
  key: string;
  failed: boolean;
}

/** The last stuckRepeats tool calls were one and the same call, and each failed. */
function isStuck(steps: StepResult<ToolSet>[], context: StopContext): boolean {
  const n = context.limits.stuckRepeats;
  if (n < 1) return false;
  const calls: CallRecord[] = [];
  for (const step of steps) {
    for (const call of step.toolCalls) {
      calls.push({
        key: `${call.toolName}\u0000${canonicalJson(call.input)}`,
        failed: failureOf(step, call.toolCallId, call.toolName, context.isFailedToolOutput) !== null,
      });
    }
  }
  const tail = calls.slice(-n);
  return tail.length === n && tail.every((c) => c.failed && c.key === tail[0]!.key);
}

/** The error of a tool call in this step, or null when it succeeded (or has no result yet). */
function failureOf(
  step: StepResult<ToolSet>,
  toolCallId: string,
  toolName: string,
  isFailedToolOutput: RunAgentInput['isFailedToolOutput'],
): unknown {
  for (const part of step.content) {
    if (part.type === 'tool-error' && part.toolCallId === toolCallId) return part.error ?? 'failed';
    if (part.type === 'tool-result' && part.toolCallId === toolCallId) {
      return isFailedToolOutput?.(toolName, part.output) ? part.output : null;
    }
  }
  return null;
}

function finishCall(
  step: StepResult<ToolSet> | undefined,
  isFailedToolOutput: RunAgentInput['isFailedToolOutput'],
): { title?: string; summary?: string } | null {
  if (step === undefined) return null;
  for (const call of step.toolCalls) {
    if (call.toolName !== FINISH_TOOL_NAME) continue;
    if (failureOf(step, call.toolCallId, call.toolName, isFailedToolOutput) !== null) continue;
    const args = (call.input ?? {}) as { title?: unknown; summary?: unknown };
    return {
      ...(typeof args.title === 'string' ? { title: args.title.trim() } : {}),
      ...(typeof args.summary === 'string' ? { summary: args.summary.trim() } : {}),
    };
  }
  return null;
}

function toolCallEvents(step: StepResult<ToolSet>, input: RunAgentInput): AgentToolCallEvent[] {
  return step.toolCalls.map((call) => {
    const args = (call.input ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof args[name] === 'string' ? (args[name] as string) : undefined);
    const path = text('path') ?? text('from');
    const to = text('to');
    const pattern = text('pattern') ?? text('glob') ?? text('query');
    const error = failureOf(step, call.toolCallId, call.toolName, input.isFailedToolOutput);
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...(path !== undefined ? { path } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(pattern !== undefined ? { pattern } : {}),
      ok: error === null,
      ...(error !== null ? { error: describeToolError(error, input.secrets ?? []) } : {}),
    };
  });
}

function describeToolError(error: unknown, secrets: readonly string[]): string {
  const raw =
    error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : (JSON.stringify(error) ?? 'failed');
  const clean = redactSecrets(raw, secrets);
  return clean.length > MAX_EVENT_ERROR_CHARS ? `${clean.slice(0, MAX_EVENT_ERROR_CHARS)}…` : clean;
}

/** JSON with sorted keys, so {a, b} and {b, a} count as the same arguments. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function nameOf(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

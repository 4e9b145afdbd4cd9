// The model phase, which runs beside the workspace phase: the agent's tools (each call waits for
// the worktree), the instructions (the repository's AGENTS.md, the job's history, what an earlier
// try already pushed), then the model's tool loop within the run's bounds.
import type { ResolvedModel } from '../../models/providers.ts';
import type { JobRunInput } from '../../modules/jobs/index.ts';
import type { ModelCallCharge } from '../../modules/usage/index.ts';
import type { Logger } from '../../util/logger.ts';
import { buildAgentInstructions } from '../instructions.ts';
import type { AgentLimits } from '../limits.ts';
import { type AgentOutcome, type AgentStepEvent, runAgent } from '../loop.ts';
import { type AgentToolbox, createAgentTools, isFailedToolOutput } from '../tools/agent-tools.ts';
import { repositoryInstructions } from './repository-instructions.ts';
import type { PreparingWorkspace } from './workspace.ts';

export interface ModelPhaseOptions {
  model: ResolvedModel;
  workspace: PreparingWorkspace;
  /** The prompt to act on now. */
  prompt: string;
  denyGlobs: readonly string[];
  limits: AgentLimits;
  streaming: boolean;
  /** For a model call that could not be priced (the database away): the run goes on. */
  logger?: Logger;
}

export interface ModelPhaseResult {
  outcome: AgentOutcome;
  /** The tools the model used; they know which paths they changed. */
  toolbox: AgentToolbox;
}

export async function runModelPhase(
  input: JobRunInput,
  options: ModelPhaseOptions,
): Promise<ModelPhaseResult> {
  const { workspace, denyGlobs } = options;
  const toolbox = await createAgentTools({
    root: workspace.root(),
    denyGlobs,
    onEvent: (event) => input.event('tool_call', { ...event }).catch(() => {}),
  });
  // A retry waits for its worktree: the model must know what an earlier try already pushed.
  const branchSoFar = input.earlierTries > 0 ? await workspace.pushedSoFar(input.job.source_ref) : null;
  const instructions = buildAgentInstructions({
    prompt: options.prompt,
    repositoryInstructions: await repositoryInstructions(
      workspace.startView,
      workspace.opening,
      toolbox,
      denyGlobs,
    ),
    history: input.history,
    branchSoFar,
  });
  const outcome = await runAgent({
    model: options.model.model,
    modelName: options.model.name,
    tools: toolbox.tools,
    instructions,
    limits: options.limits,
    signal: AbortSignal.any([input.signal, workspace.lost]),
    streaming: options.streaming,
    isFailedToolOutput,
    onStep: async (step) => {
      const charge = await chargeStep(input, options.model.name, step.usage, options.logger);
      await input
        .event('step', {
          step: step.step,
          usage: step.usage,
          tools: step.toolCalls.length,
          ...(charge !== null ? { costUsd: charge.costUsd } : {}),
        })
        .catch(() => {});
      return charge ?? {};
    },
  });
  return { outcome, toolbox };
}

/**
 * Prices the step's model call and counts it against the budget, when the worker does that; null
 * when it does not or could not (the run goes on: a lost price must not lose the work).
 */
async function chargeStep(
  input: JobRunInput,
  model: string,
  usage: AgentStepEvent['usage'],
  logger: Logger | undefined,
): Promise<ModelCallCharge | null> {
  if (!input.chargeModelCall) return null;
  try {
    return await input.chargeModelCall({ model, ...usage });
  } catch (error) {
    logger?.warn({ err: error, jobId: input.job.id }, 'could not price a model call; the run goes on');
    return null;
  }
}

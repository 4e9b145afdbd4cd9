// The model phase, which runs beside the workspace phase: the agent's tools (each call waits for
// the worktree), the instructions (the repository's AGENTS.md, the job's history, what an earlier
// try already pushed), then the model's tool loop within the run's bounds.
import type { DocsCheckResult } from '../../docs-checks/index.ts';
import type { ResolvedModel } from '../../models/providers.ts';
import type { JobRunInput } from '../../modules/jobs/index.ts';
import type { ModelCallCharge } from '../../modules/usage/index.ts';
import type { Logger } from '../../util/logger.ts';
import { checkAndFix } from '../checks/fix-turns.ts';
import type { JobDocsChecks } from '../checks/job-checks.ts';
import { problemsForModel } from '../checks/problem-text.ts';
import { buildAgentInstructions } from '../instructions.ts';
import type { AgentLimits } from '../limits.ts';
import { type AgentOutcome, type AgentStepEvent, runAgent } from '../loop.ts';
import { type AgentToolbox, createAgentTools, isFailedToolOutput } from '../tools/agent-tools.ts';
import type { CodeToolSource } from '../tools/code-tools.ts';
import { repositoryInstructions } from './repository-instructions.ts';
import type { PreparingWorkspace } from './workspace.ts';

export interface ModelPhaseOptions {
  model: ResolvedModel;
  workspace: PreparingWorkspace;
  /** The prompt to act on now. */
  prompt: string;
  /** The watched code repository at the automation run's commit: the code tools; null for none. */
  code?: CodeToolSource | null;
  denyGlobs: readonly string[];
  limits: AgentLimits;
  streaming: boolean;
  /** For a model call that could not be priced (the database away): the run goes on. */
  logger?: Logger;
  /** The job's docs checks (check_docs and the check before publishing); null when they are off. */
  checks?: JobDocsChecks | null;
  /** For a check that could not run. */
  onCheckError?: (error: unknown) => void;
}

export interface ModelPhaseResult {
  outcome: AgentOutcome;
  /** The tools the model used; they know which paths they changed. */
  toolbox: AgentToolbox;
  /** The last docs check before publishing; null when checks are off or could not run. */
  checks: DocsCheckResult | null;
}

export async function runModelPhase(
  input: JobRunInput,
  options: ModelPhaseOptions,
): Promise<ModelPhaseResult> {
  const { workspace, denyGlobs } = options;
  const checks = options.checks ?? null;
  const startedAt = Date.now();
  const toolbox = await createAgentTools({
    root: workspace.root(),
    denyGlobs,
    ...(options.code ? { code: options.code } : {}),
    // Staged (and the tree written) beside the model's next call, so the commit has less to do.
    onChanged: (paths) => workspace.ready?.stageSoon(paths),
    onEvent: (event) => {
      // A changed file: the checks' base lookups start now, beside the model's next call.
      checks?.prepare();
      return input.event('tool_call', { ...event }).catch(() => {});
    },
    ...(checks
      ? { checkDocs: async (paths: string[]) => problemsForModel(await checks.run('tool', paths)) }
      : {}),
  });
  checks?.watchTools(() => toolbox.changedPaths());
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
  const signal = AbortSignal.any([input.signal, workspace.lost]);
  let steps = 0;
  const turn = (turnInstructions: typeof instructions, limits: AgentLimits) =>
    runAgent({
      model: options.model.model,
      modelName: options.model.name,
      tools: toolbox.tools,
      instructions: turnInstructions,
      limits,
      signal,
      streaming: options.streaming,
      isFailedToolOutput,
      // A fix turn's steps go on counting from the run's.
      onStep: async (step) => {
        steps += 1;
        const charge = await chargeStep(input, options.model.name, step.usage, options.logger);
        await input
          .event('step', {
            step: steps,
            usage: step.usage,
            tools: step.toolCalls.length,
            ...(charge !== null ? { costUsd: charge.costUsd } : {}),
          })
          .catch(() => {});
        return charge ?? {};
      },
    });
  const outcome = await turn(instructions, options.limits);
  if (checks === null || outcome.stoppedBy === 'cancelled' || signal.aborted) {
    return { outcome, toolbox, checks: null };
  }
  const checked = await checkAndFix({
    checks,
    instructions,
    limits: options.limits,
    startedAt,
    outcome,
    turn,
    log: (error) => options.onCheckError?.(error),
  });
  return { outcome: checked.outcome, toolbox, checks: checked.result };
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

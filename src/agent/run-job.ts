// Runs one agent job end to end, in phases: credentials → workspace ∥ model → publish → record.
// The workspace (mirror fetch, worktree on the job's branch) is prepared while the model starts
// (run/workspace.ts, run/model.ts); the model's changes are then committed, pushed and put in a
// pull request (run/publish.ts), and the outcome or the failure is returned for the worker to
// record (run/outcome.ts). The worktree is always removed; what was pushed stays on the code host.
import { join } from 'node:path';
import type { CodeHost, CodeHostOptions } from '../code-hosts/contract.ts';
import { createCodeHost } from '../code-hosts/factory.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { ModelOptions } from '../models/providers.ts';
import type { JobRunInput, JobRunner, JobRunResult, JobUsage } from '../modules/jobs/index.ts';
import { repositoryPolicy } from '../modules/projects/index.ts';
import type { Logger } from '../util/logger.ts';
import { jobDocsChecks } from './checks/settings.ts';
import { CodeMirrors } from './code-source/code-mirror.ts';
import { type AgentLimits, DEFAULT_AGENT_LIMITS, resolveAgentLimits } from './limits.ts';
import { openCodeSource } from './run/code-source.ts';
import { readRunCredentials } from './run/credentials.ts';
import { runModelPhase } from './run/model.ts';
import { asFailure, cancelledRun, finishedRun } from './run/outcome.ts';
import { publish } from './run/publish.ts';
import { PreparingWorkspace } from './run/workspace.ts';
import { DEFAULT_DENY_GLOBS } from './tools/guards.ts';
import { branchName } from './workspace/branch-name.ts';
import { Workspaces } from './workspace/workspaces.ts';

export interface AgentRunnerOptions {
  db: Database;
  config: Pick<
    Config,
    | 'dataDir'
    | 'secretKey'
    | 'defaultModel'
    | 'modelCredentials'
    | 'modelTimeoutMs'
    | 'codeHostTokens'
    | 'repositories'
    | 'gitAuthor'
    | 'publicUrl'
  >;
  logger: Logger;
  workspaces?: Workspaces;
  /** The code mirrors the code tools read (<dataDir>/code-repos by default). */
  codeMirrors?: CodeMirrors;
  /** Builds the code-host adapter; tests point it at their fakes. */
  codeHost?: (options: CodeHostOptions) => CodeHost;
  model?: ModelOptions;
  /** Server defaults for the run's bounds; projects override them. */
  limits?: AgentLimits;
  streaming?: boolean;
  /** Keeps the job's diff after the worktree is gone (the diff endpoint reads it). */
  saveDiff?: (jobId: string, diff: string) => Promise<unknown>;
}

type RunOptions = AgentRunnerOptions & {
  workspaces: Workspaces;
  codeMirrors: CodeMirrors;
  makeCodeHost: (options: CodeHostOptions) => CodeHost;
};

export function createAgentRunner(options: AgentRunnerOptions): JobRunner {
  const workspaces =
    options.workspaces ??
    new Workspaces({
      cacheDir: join(options.config.dataDir, 'repos'),
      worktreesDir: join(options.config.dataDir, 'worktrees'),
    });
  const codeMirrors =
    options.codeMirrors ?? new CodeMirrors({ cacheDir: join(options.config.dataDir, 'code-repos') });
  const makeCodeHost = options.codeHost ?? createCodeHost;
  return (input) => runJob(input, { ...options, workspaces, codeMirrors, makeCodeHost });
}

async function runJob(input: JobRunInput, options: RunOptions): Promise<JobRunResult> {
  const { job, project, prompts, signal } = input;
  const { db, config } = options;
  const prompt = prompts.at(-1) ?? job.prompt;
  // What a failure reports besides its code: the branch once it is known, the usage once the
  // model phase has ended.
  let branch: string | null = job.branch;
  let usage: JobUsage | null = null;
  let workspace: PreparingWorkspace | null = null;
  try {
    const credentials = await readRunCredentials(input, db, config, options.model, options.makeCodeHost);
    // A code_change automation's job reads the watched code at the run's commit.
    const code = await openCodeSource(input, db, config, options.codeMirrors, options.makeCodeHost);

    // Recorded before anything else happens, so a job lost later still says where its work is.
    const jobBranch = job.branch ?? branchName(prompts[0] ?? prompt, job.id);
    branch = jobBranch;
    await input.setBranch(jobBranch);

    workspace = new PreparingWorkspace(
      options.workspaces,
      input,
      jobBranch,
      credentials.authorization,
      repositoryPolicy(config.repositories),
    );
    const checks = jobDocsChecks(input, workspace.opening);
    const {
      outcome,
      toolbox,
      checks: checked,
    } = await runModelPhase(input, {
      model: credentials.model,
      workspace,
      prompt,
      code,
      denyGlobs: [...DEFAULT_DENY_GLOBS, ...(project.settings.deniedPaths ?? [])],
      limits: resolveAgentLimits(project.settings, options.limits ?? DEFAULT_AGENT_LIMITS),
      streaming: options.streaming ?? false,
      logger: options.logger,
      checks,
      onCheckError: (error) =>
        options.logger.warn({ err: error, jobId: job.id }, 'the docs checks could not run'),
    });
    const opened = await workspace.afterModel();
    usage = outcome.usage;
    if (outcome.stoppedBy === 'cancelled') return cancelledRun(usage);

    const pullRequest = await publish(input, {
      config,
      codeHost: credentials.codeHost,
      workspace: opened,
      outcome,
      changedPaths: toolbox.changedPaths(),
      prompt,
      branch: jobBranch,
      saveDiff: options.saveDiff,
      checks:
        checks && checked && checked.introduced.length > 0 ? { mode: checks.mode, result: checked } : null,
    });
    return finishedRun(outcome, pullRequest, jobBranch);
  } catch (error) {
    if (signal.aborted) return { status: 'failed', code: 'cancelled', message: 'Stopped while running.' };
    // A worktree that could not be made explains whatever else failed meanwhile (the model call
    // it aborted, a tool that could not run).
    await workspace?.settled();
    const failure = asFailure(workspace?.failure ?? error);
    if (failure === null) throw error;
    options.logger.warn({ jobId: job.id, code: failure.code }, 'job failed');
    return { status: 'failed', code: failure.code, message: failure.message, usage, branch };
  } finally {
    await releaseWorkspace(input, workspace, options.logger);
  }
}

/**
 * Removes the worktree, after the outcome is recorded when the worker allows it: the job's end is
 * not held up by parking the worktree. remove() leaves alone a worktree that is no longer this
 * run's (a follow-up already taken by another process sharing the data directory).
 */
async function releaseWorkspace(
  input: JobRunInput,
  workspace: PreparingWorkspace | null,
  logger: Logger,
): Promise<void> {
  await workspace?.settled();
  const ready = workspace?.ready ?? null;
  const remove = async () => {
    await ready?.remove().catch((error) => {
      logger.warn({ err: error, jobId: input.job.id }, 'could not remove the worktree');
    });
  };
  if (input.deferCleanup && ready) input.deferCleanup(remove);
  else await remove();
}

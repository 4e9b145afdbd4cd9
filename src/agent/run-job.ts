// Runs one agent job end to end: credentials → workspace (mirror + worktree on the job's branch)
// → the model's tool loop → commit → push → pull request. Returns the outcome for the worker to
// record; every failure becomes a job failure code with a message that names the cause and holds
// no secret. The worktree is always removed; what was pushed stays on the code host.
import { join } from 'node:path';
import { type CodeHost, CodeHostError, type CodeHostOptions } from '../code-hosts/contract.ts';
import { createCodeHost } from '../code-hosts/factory.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { ModelFailure } from '../models/errors.ts';
import type { ModelOptions } from '../models/providers.ts';
import type { JobFailureCode } from '../modules/jobs/failure-codes.ts';
import type { JobRunInput, JobRunner, JobRunResult } from '../modules/jobs/runner-contract.ts';
import type { Logger } from '../util/logger.ts';
import { codeHostOptionsOf } from './code-host-options.ts';
import {
  type BranchSoFar,
  buildAgentInstructions,
  REPOSITORY_INSTRUCTION_FILES,
  type RepositoryInstructions,
} from './instructions.ts';
import { jobCodeHostCredentials, jobModel } from './job-credentials.ts';
import { type AgentLimits, DEFAULT_AGENT_LIMITS, resolveAgentLimits } from './limits.ts';
import { type AgentOutcome, runAgent, type StopReason } from './loop.ts';
import {
  commitMessage,
  nothingChangedNote,
  pullRequestBody,
  pullRequestTitle,
  stopNote,
} from './pull-request-text.ts';
import { type AgentToolbox, createAgentTools, isFailedToolOutput } from './tools/agent-tools.ts';
import { DEFAULT_DENY_GLOBS, Guards, isToolRefusal, MAX_FILE_BYTES } from './tools/guards.ts';
import { readTextFile } from './tools/text-file.ts';
import { branchName } from './workspace/branch-name.ts';
import { WorkspaceFailure } from './workspace/failures.ts';
import type { JobWorkspace } from './workspace/job-workspace.ts';
import { type WorkspaceStartView, Workspaces } from './workspace/workspaces.ts';

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
  /** Builds the code-host adapter; tests point it at their fakes. */
  codeHost?: (options: CodeHostOptions) => CodeHost;
  model?: ModelOptions;
  /** Server defaults for the run's bounds; projects override them. */
  limits?: AgentLimits;
  streaming?: boolean;
  /** Keeps the job's diff after the worktree is gone (the diff endpoint reads it). */
  saveDiff?: (jobId: string, diff: string) => Promise<unknown>;
}

const BOUNDS: readonly StopReason[] = ['max_steps', 'max_tokens', 'wall_time', 'stuck', 'no_more_tool_calls'];

export function createAgentRunner(options: AgentRunnerOptions): JobRunner {
  const workspaces =
    options.workspaces ??
    new Workspaces({
      cacheDir: join(options.config.dataDir, 'repos'),
      worktreesDir: join(options.config.dataDir, 'worktrees'),
    });
  const makeCodeHost = options.codeHost ?? createCodeHost;
  return (input) => runJob(input, { ...options, workspaces, makeCodeHost });
}

async function runJob(
  input: JobRunInput,
  options: AgentRunnerOptions & { workspaces: Workspaces; makeCodeHost: (o: CodeHostOptions) => CodeHost },
): Promise<JobRunResult> {
  const { job, project, prompts, signal } = input;
  const { db, config } = options;
  const prompt = prompts.at(-1) ?? job.prompt;
  // Set once the worktree exists (from a callback: an object, so the finally below sees it).
  const held: { workspace: JobWorkspace | null } = { workspace: null };
  let opening: Promise<JobWorkspace> | null = null;
  let workspaceError: unknown = null;
  const workspaceLost = new AbortController();
  const denyGlobs = [...DEFAULT_DENY_GLOBS, ...(project.settings.deniedPaths ?? [])];
  let usage: AgentOutcome['usage'] | null = null;
  let branch: string | null = job.branch;
  try {
    const { resolved } = await jobModel(db, config, project, job.model, {
      timeoutMs: config.modelTimeoutMs,
      ...options.model,
      onRetry: (retry) => void input.event('model_retry', { ...retry }).catch(() => {}),
    });
    const codeHost = options.makeCodeHost(
      codeHostOptionsOf(project, await jobCodeHostCredentials(db, config, project, job.source_repository)),
    );
    const header = await codeHost.gitAuthHeader(signal);
    const authorization = header.replace(/^Authorization:\s*/i, '');

    branch = job.branch ?? branchName(prompts[0] ?? prompt, job.id);
    await input.setBranch(branch);
    // The model starts as soon as its instructions are known, while the worktree is prepared
    // (see "A run, step by step" in docs/agent-jobs.md); every tool call waits for the worktree.
    // If the worktree cannot be made, the model call is aborted and the workspace's failure is
    // the job's.
    let started: (view: WorkspaceStartView) => void = () => {};
    const startView = new Promise<WorkspaceStartView>((resolve) => {
      started = resolve;
    });
    const jobBranch = branch;
    opening = openWorkspace(options.workspaces, input, jobBranch, authorization, started).then(
      async (opened) => {
        held.workspace = opened;
        await input.event('workspace', {
          branch: jobBranch,
          base: job.source_ref,
          mirror: opened.mirrorCloned ? 'cloned' : 'fetched',
        });
        return opened;
      },
    );
    opening.catch((error) => {
      workspaceError = error;
      workspaceLost.abort(error);
    });

    const toolbox = await createAgentTools({
      root: opening.then((opened) => opened.path),
      denyGlobs,
      onEvent: (event) => input.event('tool_call', { ...event }).catch(() => {}),
    });
    // A retry waits for its worktree: the model must know what an earlier try already pushed.
    const branchSoFar = input.earlierTries > 0 ? await pushedSoFar(opening, job.source_ref) : null;
    const instructions = buildAgentInstructions({
      prompt,
      repositoryInstructions: await repositoryInstructions(startView, opening, toolbox, denyGlobs),
      history: input.history,
      branchSoFar,
    });
    const outcome = await runAgent({
      model: resolved.model,
      modelName: resolved.name,
      tools: toolbox.tools,
      instructions,
      limits: resolveAgentLimits(project.settings, options.limits ?? DEFAULT_AGENT_LIMITS),
      signal: AbortSignal.any([signal, workspaceLost.signal]),
      streaming: options.streaming ?? false,
      isFailedToolOutput,
      onStep: (step) =>
        input
          .event('step', { step: step.step, usage: step.usage, tools: step.toolCalls.length })
          .catch(() => {}),
    });
    if (workspaceError !== null) throw workspaceError;
    const opened = await opening;
    usage = outcome.usage;
    if (outcome.stoppedBy === 'cancelled') {
      return { status: 'failed', code: 'cancelled', message: 'Cancelled while running.', usage };
    }

    const title = pullRequestTitle(outcome.title, prompt);
    // Only what the tools touched is staged: scanning a 10,000-file tree for changes costs more.
    const commit = await opened.commit(config.gitAuthor, commitMessage(title, outcome.summary), {
      paths: toolbox.changedPaths(),
    });
    if (commit.committed) await input.event('committed', { commit: commit.commit });
    // A commit just made puts the branch ahead of its base; only a run that committed nothing asks
    // git, because a follow-up or a retry may still carry earlier commits to publish.
    if (!commit.committed && (await opened.commitsAhead()) === 0) {
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
    // The diff is kept while the branch is pushed: neither needs the other. A refused push is
    // the failure to report when both fail.
    const [saved, pushed] = await Promise.allSettled([
      opened.diff().then((diff) => options.saveDiff?.(job.id, diff)),
      opened.push(),
    ]);
    if (pushed.status === 'rejected') throw pushed.reason;
    if (saved.status === 'rejected') throw saved.reason;
    await input.event('pushed', { branch });
    const pr = await codeHost.openOrUpdatePullRequest({
      repositoryUrl: job.source_repository,
      head: branch,
      base: job.source_ref,
      title,
      body: pullRequestBody({
        summary: outcome.summary,
        stoppedBy: outcome.stoppedBy,
        prompts,
        jobId: job.id,
        jobUrl: `${config.publicUrl}/v2/agent/${project.id}/job/${job.id}`,
      }),
      draft: project.settings.draftPullRequests ?? false,
      // Pushed for the first time just now: no pull request can be open for it yet.
      headIsNew: !opened.branchOnHost,
      signal,
    });
    await input.event('pull_request', { url: pr.url, number: pr.number, reused: pr.reused });
    const note = stopNote(outcome.stoppedBy);
    return {
      status: 'completed',
      prLink: pr.url,
      branch,
      summary: [outcome.summary?.trim(), note].filter(Boolean).join('\n\n') || null,
      stopReason: outcome.stoppedBy,
      usage,
    };
  } catch (error) {
    if (signal.aborted) return { status: 'failed', code: 'cancelled', message: 'Stopped while running.' };
    // A worktree that could not be made explains whatever else failed meanwhile (the model call
    // it aborted, a tool that could not run).
    await opening?.catch(() => undefined);
    const failure = asFailure(workspaceError ?? error);
    if (failure === null) throw error;
    options.logger.warn({ jobId: job.id, code: failure.code }, 'job failed');
    return { status: 'failed', code: failure.code, message: failure.message, usage, branch };
  } finally {
    await opening?.catch(() => undefined);
    const workspace = held.workspace;
    const remove = async () => {
      await workspace?.remove().catch((error) => {
        options.logger.warn({ err: error, jobId: job.id }, 'could not remove the worktree');
      });
    };
    // After the outcome is recorded when the worker allows it: the job's end is not held up by
    // parking the worktree. remove() leaves alone a worktree that is no longer this run's (a
    // follow-up already taken by another process sharing the data directory).
    if (input.deferCleanup && workspace) input.deferCleanup(remove);
    else await remove();
  }
}

/** A follow-up or a retry continues the job's branch when the code host has it. */
async function openWorkspace(
  workspaces: Workspaces,
  input: JobRunInput,
  branch: string,
  authorization: string,
  onStart: (view: WorkspaceStartView) => void,
): Promise<JobWorkspace> {
  const { job, signal } = input;
  const repository = { url: job.source_repository, authorization };
  const open = (start: Parameters<Workspaces['open']>[0]['start']) =>
    workspaces.open({ repository, jobId: job.id, branch, start, signal, onStart });
  if (job.branch === null) return open({ kind: 'new', ref: job.source_ref });
  try {
    return await open({ kind: 'continue', baseRef: job.source_ref });
  } catch (error) {
    if (error instanceof WorkspaceFailure && error.kind === 'ref_not_found') {
      return open({ kind: 'new', ref: job.source_ref });
    }
    throw error;
  }
}

/** The branch's diff against its base when the branch was on the code host and holds changes. */
async function pushedSoFar(opening: Promise<JobWorkspace>, base: string): Promise<BranchSoFar | null> {
  const opened = await opening;
  if (!opened.branchOnHost) return null;
  const diff = await opened.diff();
  return diff.trim() === '' ? null : { base, diff };
}

/**
 * .docwright/AGENTS.md, else AGENTS.md, under the same rules as the agent's tools. On a cached
 * mirror it is read from the mirror at the start commit as soon as the fetch is done, so the
 * model need not wait for the worktree; the worktree is the source when this job cloned the
 * mirror (its file contents are fetched by the checkout anyway) and when only a checkout can
 * judge the file (a symbolic link, bytes that are not UTF-8).
 */
async function repositoryInstructions(
  startView: Promise<WorkspaceStartView>,
  opening: Promise<JobWorkspace>,
  toolbox: AgentToolbox,
  denyGlobs: readonly string[],
): Promise<RepositoryInstructions | null> {
  // The worktree may be ready (or failed) without the start view ever coming.
  const view = await Promise.race([startView, opening.then(() => null)]);
  if (view !== null && !view.mirrorCloned) {
    const fromMirror = await instructionsFromMirror(view, denyGlobs);
    if (fromMirror !== 'needs_checkout') return fromMirror;
  }
  const guards = await toolbox.guards();
  for (const path of REPOSITORY_INSTRUCTION_FILES) {
    try {
      const { file, text } = await readTextFile(guards, path);
      return { path: file.relative, content: text };
    } catch (error) {
      if (!isToolRefusal(error)) throw error;
    }
  }
  return null;
}

/** The tools' refusals, applied to the mirror's files: denied, too large, binary → the next one. */
async function instructionsFromMirror(
  view: WorkspaceStartView,
  denyGlobs: readonly string[],
): Promise<RepositoryInstructions | null | 'needs_checkout'> {
  const rules = Guards.rulesOnly(denyGlobs);
  const allowed = REPOSITORY_INSTRUCTION_FILES.filter((path) => rules.isAllowed(path));
  if (allowed.length === 0) return null;
  for (const entry of await view.listFiles(allowed, MAX_FILE_BYTES)) {
    if (entry.kind === 'symlink') return 'needs_checkout';
    if (entry.kind !== 'file') continue;
    const bytes = await entry.read();
    if (bytes === null) return 'needs_checkout';
    try {
      return { path: entry.path, content: rules.decodeText(entry.path, bytes) };
    } catch (error) {
      if (!isToolRefusal(error)) throw error;
    }
  }
  return null;
}

function asFailure(error: unknown): { code: JobFailureCode; message: string } | null {
  if (error instanceof ModelFailure) return { code: error.code, message: error.message };
  if (error instanceof WorkspaceFailure) return { code: error.code, message: error.message };
  if (error instanceof CodeHostError) return { code: error.code, message: error.message };
  return null;
}

// Opens a job's workspace: refresh the repository's cached mirror (clone the first time, fetch
// afterwards), then put a worktree on the job's branch (a kept one when there is one, else a new
// one). The entry point of src/agent/workspace.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { OutboundPolicy } from '../../net/outbound-http/index.ts';
import { WorkspaceFailure } from './failures.ts';
import { type GitContext, runGit } from './git-command.ts';
import { GitRunner } from './git-runner.ts';
import { type IdlePool, idlePoolFor, takeIdleWorktree } from './idle-worktrees.ts';
import { JobWorkspace } from './job-workspace.ts';
import { lockPathFor, mirrorPathFor, refreshMirror, resolveStartCommit } from './mirror.ts';
import { listMirrorFiles, type MirrorEntry } from './mirror-file.ts';
import { withMirrorLock } from './mirror-lock.ts';
import { checkRefName, checkRepositoryUrl } from './repository-url.ts';
import { createScrubber, secretsOfAuthorization } from './scrub.ts';
import { deleteInBackground, moveToTrash, sweepTrash } from './trash.ts';
import { markWorktree } from './worktree-owner.ts';

export interface RepositoryAccess {
  /** https:// URL of the repository, without credentials. */
  url: string;
  /**
   * The ready value of the Authorization header git sends, in the code host's format, e.g.
   * `Basic base64(x-access-token:TOKEN)` for GitHub or `Bearer TOKEN`. Null for a public repository.
   */
  authorization: string | null;
  /** Further values to keep out of messages (the raw token, when the header encodes it). */
  secrets?: readonly string[];
  /**
   * The repositories' address policy (DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE). With it, a later job
   * asks the host where its branches are with one request, and fetches only when they moved
   * (remote-refs.ts); without it, it always fetches.
   */
  policy?: OutboundPolicy | null;
}

export type WorkspaceStart =
  /** A new branch at `ref` (a branch, tag or commit); the remote's default branch when null. */
  | { kind: 'new'; ref: string | null }
  /**
   * Continue the job's branch as it is on the remote (a follow-up, or a retry after a push); its
   * changes are compared with `baseRef` (the default branch when null).
   */
  | { kind: 'continue'; baseRef: string | null };

export interface OpenWorkspaceInput {
  repository: RepositoryAccess;
  /** Names the worktree directory: letters, digits, "_" and "-". */
  jobId: string;
  /** The job's branch (see branchName()). */
  branch: string;
  start: WorkspaceStart;
  /** Aborts git commands under way (cancel); the worktree is still removed by remove(). */
  signal?: AbortSignal;
  /**
   * Told as soon as the mirror is fresh and the start commit known, before the worktree is
   * prepared: a caller may read files from the mirror meanwhile (the agent's instructions).
   */
  onStart?: (start: WorkspaceStartView) => void;
}

/** The job's start commit in the fresh mirror, readable before the worktree exists. */
export interface WorkspaceStartView {
  /** True when this job cloned the mirror (its file contents are then not fetched yet). */
  mirrorCloned: boolean;
  /** See listMirrorFiles(). */
  listFiles(paths: readonly string[], maxBytes: number): Promise<MirrorEntry[]>;
}

export interface WorkspacesOptions {
  /** Mirrors live here, one per repository URL (e.g. <dataDir>/repos). */
  cacheDir: string;
  /** Worktrees live here, one per job (e.g. <dataDir>/worktrees). */
  worktreesDir: string;
  /** Runs git; tests pass one that records every invocation. */
  runner?: GitRunner;
  /** How long a job waits for another job's fetch of the same repository. */
  lockTimeoutMs?: number;
  /**
   * Finished worktrees kept per repository for the next job to reuse (idle-worktrees.ts): a job
   * on a large repository then rewrites only the files that differ instead of all of them.
   * Default 2; 0 deletes every worktree when its job ends.
   */
  idleWorktrees?: number;
}

export class Workspaces {
  private readonly cacheDir: string;
  private readonly worktreesDir: string;
  private readonly runner: GitRunner;
  private readonly lockTimeoutMs: number;
  private readonly idleWorktrees: number;

  constructor(options: WorkspacesOptions) {
    this.cacheDir = resolve(options.cacheDir);
    this.worktreesDir = resolve(options.worktreesDir);
    this.runner = options.runner ?? new GitRunner();
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10 * 60_000;
    this.idleWorktrees = options.idleWorktrees ?? 2;
  }

  /** The scrubber for one repository's credential: apply it to anything derived from git output. */
  static scrubberFor(repository: RepositoryAccess) {
    return createScrubber([
      ...secretsOfAuthorization(repository.authorization),
      ...(repository.secrets ?? []),
    ]);
  }

  async open(input: OpenWorkspaceInput): Promise<JobWorkspace> {
    input.signal?.throwIfAborted();
    const url = checkRepositoryUrl(input.repository.url);
    const authorization = input.repository.authorization;
    if (authorization !== null && /[\r\n\0]/.test(authorization))
      throw new WorkspaceFailure('auth', 'The code-host credential is not a valid HTTP header value.');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(input.jobId))
      throw new WorkspaceFailure('git_failed', 'The job id cannot name a directory.');
    const branch = checkRefName(input.branch, 'branch');
    const baseRef = input.start.kind === 'new' ? input.start.ref : input.start.baseRef;
    const continuing = input.start.kind === 'continue';
    if (baseRef !== null) checkRefName(baseRef, 'ref');
    const context: GitContext = {
      runner: this.runner,
      authorization,
      scrub: Workspaces.scrubberFor(input.repository),
      signal: input.signal,
    };
    const mirrorPath = mirrorPathFor(this.cacheDir, url);
    const lockPath = lockPathFor(mirrorPath);
    const path = join(this.worktreesDir, input.jobId);
    const pool = idlePoolFor(this.worktreesDir, mirrorPath, this.idleWorktrees);
    await mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
    await mkdir(this.worktreesDir, { recursive: true, mode: 0o700 });
    void sweepTrash(this.worktreesDir);

    const { cloned, baseCommit, mark, freshCheckout } = await withMirrorLock(
      lockPath,
      async () => {
        const { cloned, remoteHead } = await refreshMirror(context, mirrorPath, url, {
          baseRef,
          branch: continuing ? branch : null,
          policy: input.repository.policy ?? null,
        });
        const base = remoteHead ?? (await resolveStartCommit(context, mirrorPath, baseRef!));
        const { startCommit, baseCommit } = await this.startingPoint(
          context,
          mirrorPath,
          branch,
          base,
          input.start,
        );
        input.onStart?.({
          mirrorCloned: cloned,
          listFiles: (paths, maxBytes) => listMirrorFiles(context, mirrorPath, startCommit, paths, maxBytes),
        });
        const freshCheckout = await this.addWorktree(context, mirrorPath, pool, path, branch, startCommit);
        return { cloned, baseCommit, mark: await markWorktree(path), freshCheckout };
      },
      { timeoutMs: this.lockTimeoutMs, signal: input.signal },
    );
    return new JobWorkspace({
      context,
      repositoryUrl: url,
      mirrorPath,
      lockPath,
      path,
      branch,
      baseCommit,
      mirrorCloned: cloned,
      branchOnHost: continuing,
      freshCheckout,
      mark,
      lockTimeoutMs: this.lockTimeoutMs,
      pool,
      policy: input.repository.policy ?? null,
    });
  }

  private async startingPoint(
    context: GitContext,
    mirrorPath: string,
    branch: string,
    baseTip: string,
    start: WorkspaceStart,
  ) {
    if (start.kind === 'new') return { startCommit: baseTip, baseCommit: baseTip };
    const tip = await runGit(
      context,
      ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}^{commit}`],
      { cwd: mirrorPath, action: 'finding the branch', okExitCodes: [1] },
    );
    if (tip.exitCode !== 0)
      throw new WorkspaceFailure('ref_not_found', `The branch "${branch}" is not on the code host.`);
    const startCommit = tip.stdout.trim();
    // Compared with where the branch left the base, so the diff is the pull request's diff even
    // when the base has moved on since.
    const mergeBase = await runGit(context, ['merge-base', baseTip, startCommit], {
      cwd: mirrorPath,
      action: 'finding where the branch started',
      okExitCodes: [1],
    });
    return { startCommit, baseCommit: mergeBase.exitCode === 0 ? mergeBase.stdout.trim() : baseTip };
  }

  private async addWorktree(
    context: GitContext,
    mirrorPath: string,
    pool: IdlePool,
    path: string,
    branch: string,
    startCommit: string,
  ): Promise<boolean> {
    // A worktree left by an earlier attempt of the same job (its worker died) is replaced.
    // Git's record of it is pruned then; otherwise there is nothing to prune (a worktree that is
    // not kept is pruned when it is removed), so a job does not pay for it.
    const prune = () =>
      runGit(context, ['worktree', 'prune'], { cwd: mirrorPath, action: 'pruning worktrees' });
    const stale = await moveToTrash(path);
    if (stale) {
      deleteInBackground(stale);
      await prune();
    }
    if (await takeIdleWorktree(context, mirrorPath, pool, path, branch, startCommit)) return false;
    // -B: the local branch may survive from that earlier attempt; it is reset to the start.
    const add = () =>
      runGit(context, ['worktree', 'add', '--quiet', '--no-track', '-B', branch, path, startCommit], {
        cwd: mirrorPath,
        action: 'checking out the worktree',
      });
    try {
      await add();
    } catch (error) {
      // A record left by a process that died after its worktree's files were already gone (git
      // then calls the path "missing but already registered"): pruned, and tried once more.
      if (!(error instanceof WorkspaceFailure) || error.kind !== 'git_failed') throw error;
      await prune();
      await add();
    }
    return true;
  }
}

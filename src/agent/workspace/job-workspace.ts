// One job's working copy: a git worktree of the repository's mirror on the job's own branch. The
// agent's tools write files in `path`; this class turns what they wrote into a commit, a diff and
// a pushed branch, and removes the worktree afterwards.

import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboundPolicy } from '../../net/outbound-http/index.ts';
import { WorkspaceFailure } from './failures.ts';
import { type GitContext, runGit } from './git-command.ts';
import { type IdlePool, parkWorktree } from './idle-worktrees.ts';
import { withMirrorLock } from './mirror-lock.ts';
import { pushByRequest, pushLeftToGit } from './push-request.ts';
import { canProbe } from './remote-refs.ts';
import { deleteInBackground, moveToTrash } from './trash.ts';
import { worktreeGitDir } from './worktree-git-dir.ts';
import { isWorktreeMarked } from './worktree-owner.ts';

export interface CommitIdentity {
  name: string;
  email: string;
}

export type CommitResult = { committed: false } | { committed: true; commit: string };

export interface JobWorkspaceInit {
  context: GitContext;
  repositoryUrl: string;
  mirrorPath: string;
  lockPath: string;
  path: string;
  branch: string;
  baseCommit: string;
  mirrorCloned: boolean;
  branchOnHost: boolean;
  /**
   * True when `worktree add` has just checked out every file: the commit then stages in an index
   * of its own (see #ownIndex).
   */
  freshCheckout: boolean;
  /** This run's mark on the worktree (worktree-owner.ts). */
  mark: string;
  lockTimeoutMs: number;
  pool: IdlePool;
  /** The repositories' address policy: with it, a new branch is pushed by one request (push-request.ts). */
  policy?: OutboundPolicy | null;
}

/** Above this many changed files, staging scans the tree instead (argv has a size limit). */
const MAX_STAGED_PATHS = 1000;

/** Most a baseLines() answer may print (the base's page texts with a path per line). */
const BASE_LINES_MAX_BYTES = 64 * 1024 * 1024;

/** A larger pack is left to `git push` (a docs job's commit is a few kilobytes). */
const MAX_PACK_BYTES = 32 * 1024 * 1024;

const SHA1_ID = /^[0-9a-f]{40}$/;

/** Longest commit message accepted (it travels in argv; a PR title is far shorter anyway). */
const MAX_MESSAGE_LENGTH = 16 * 1024;

/**
 * A commit message as `git commit --cleanup=strip` leaves it: lines starting with "#" dropped,
 * trailing whitespace removed, runs of empty lines made one, no empty lines at either end.
 */
export function cleanCommitMessage(message: string): string {
  const lines: string[] = [];
  for (const raw of message.split(/\r?\n/)) {
    if (raw.startsWith('#')) continue;
    const line = raw.trimEnd();
    if (line === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(line);
  }
  while (lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

export class JobWorkspace {
  /** The worktree's root directory: the only place the agent's tools may touch. */
  readonly path: string;
  /** The job's branch, e.g. docwright/fix-typos-3xk9ab12. */
  readonly branch: string;
  /** The commit the job's changes are compared with (where the branch left its base). */
  readonly baseCommit: string;
  /** True when this job had to clone the repository; false when a cached mirror was fetched. */
  readonly mirrorCloned: boolean;
  /** True when the job's branch was on the code host and this workspace continues it. */
  readonly branchOnHost: boolean;
  private readonly init: JobWorkspaceInit;
  /**
   * Staging while the model works (stageSoon): git commands on the index, one after the other.
   * Never rejects: what could not be staged early is staged by the commit.
   */
  #staging: Promise<void> = Promise.resolve();
  /** Per path: how many times the tools changed it, and that count when it was last staged. */
  readonly #changes = new Map<string, number>();
  readonly #staged = new Map<string, number>();
  /** Bumped by every change of the index; the early tree is good while it is unchanged. */
  #indexVersion = 0;
  #earlyTree: { tree: string; indexVersion: number } | null = null;
  /** `rev-parse HEAD HEAD^{tree}`, asked early; forgotten when a commit moves HEAD. */
  #head: Promise<string> | null = null;
  /**
   * On a fresh checkout: the environment naming the index the commits stage in, made from HEAD's
   * tree when first needed (#ownIndex); an empty one (the worktree's own index) otherwise.
   */
  #indexEnv: Promise<Record<string, string>> | null = null;

  constructor(init: JobWorkspaceInit) {
    this.init = init;
    this.path = init.path;
    this.branch = init.branch;
    this.baseCommit = init.baseCommit;
    this.mirrorCloned = init.mirrorCloned;
    this.branchOnHost = init.branchOnHost;
  }

  private git(args: string[], action: string, okExitCodes?: number[], extraEnv?: Record<string, string>) {
    return runGit(this.init.context, args, { cwd: this.path, action, unlocked: true, okExitCodes, extraEnv });
  }

  /** git on the index the commits stage in (`add`, `write-tree`). */
  private async indexGit(args: string[], action: string) {
    this.#indexEnv ??= this.#ownIndex();
    return this.git(args, action, undefined, await this.#indexEnv);
  }

  /**
   * The index a commit stages in. After `worktree add` every file was written in the last second
   * or so before the worktree's index, so git cannot trust their times ("racily clean" entries,
   * same second as the index) and re-reads and hashes each of them whenever that index is
   * written: once in the first `add`, and again in `write-tree` when the `add` ended in the same
   * second (117 + 83 ms of a 10,000-file first job, bench/agent.ts). Plain git's `checkout -b`
   * and `commit` pay the same. Instead, a fresh checkout's commits stage in an index of their own
   * in the worktree's git directory, read from HEAD's tree (`read-tree`, ~10 ms): its entries
   * carry no file times at all, so nothing is taken as unchanged on the strength of a time, a
   * path given to `add` is read and hashed, and no other file is read. The worktree's own index
   * stays as the checkout left it (the base's files), which is what the removal's `checkout
   * --force` and changedSinceBase() compare against; nothing else reads it.
   */
  async #ownIndex(): Promise<Record<string, string>> {
    if (!this.init.freshCheckout) return {};
    const path = await this.#ownIndexPath();
    if (path === null) return {};
    const env = { GIT_INDEX_FILE: path };
    try {
      await this.git(['read-tree', 'HEAD'], 'reading the branch', undefined, env);
      return env;
    } catch {
      // The worktree's own index then, as on a reused worktree.
      return {};
    }
  }

  /** <the worktree's git directory>/docwright-index, or null when `.git` is not git's link file. */
  async #ownIndexPath(): Promise<string | null> {
    const gitDir = await worktreeGitDir(this.path);
    return gitDir === null ? null : join(gitDir, 'docwright-index');
  }

  /**
   * Commits the changes in the worktree as `identity`; nothing changed: no commit, and the result
   * says so. `paths` (the files the tools changed, see AgentToolbox.changedPaths()) limits staging
   * to those files, which spares a scan of the whole tree; without it every change is staged
   * (new, edited, deleted, moved files; ignored files stay out).
   */
  async commit(
    identity: CommitIdentity,
    message: string,
    options: { paths?: readonly string[] } = {},
  ): Promise<CommitResult> {
    const made = await this.makeCommit(identity, message, options);
    if (!made.committed) return made;
    await made.branchMoved;
    return { committed: true, commit: made.commit };
  }

  /**
   * commit(), except that the branch is moved beside what the caller does next instead of before
   * it returns: a push of `commit` by its id does not need the branch (`branchMoved` settles when
   * it has moved, or rejects as commit() would).
   */
  async makeCommit(
    identity: CommitIdentity,
    message: string,
    options: { paths?: readonly string[] } = {},
  ): Promise<{ committed: false } | { committed: true; commit: string; branchMoved: Promise<void> }> {
    // Plumbing rather than `git commit`, which on a large tree spends most of its time on a status
    // scan this needs no part of (measured: ~40 ms of a 10,000-file repository's ~60 ms commit).
    // What stageSoon() already staged (and the tree it wrote) is not done again.
    await this.#staging;
    const reading = this.#readHead();
    const paths =
      options.paths === undefined
        ? undefined
        : options.paths.filter((p) => !this.#changes.has(p) || this.#staged.get(p) !== this.#changes.get(p));
    const [, headText] = await Promise.all([this.stage(paths), reading]);
    const [parent, parentTree] = headText.split('\n');
    const early = this.#earlyTree;
    const tree =
      early !== null && early.indexVersion === this.#indexVersion
        ? early.tree
        : (await this.indexGit(['write-tree'], 'writing the tree')).stdout.trim();
    if (tree === parentTree) return { committed: false };
    const text = cleanCommitMessage(message.slice(0, MAX_MESSAGE_LENGTH)) || 'Update documentation';
    // The identity comes through the environment, so nothing is written to any config file.
    const who = {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
    };
    const created = await this.git(
      ['commit-tree', '--no-gpg-sign', tree, '-p', parent!, '-m', text],
      'committing',
      undefined,
      who,
    );
    const commit = created.stdout.trim();
    // Moves the job's branch (HEAD points to it) only if it is still where this commit started.
    const branchMoved = this.git(
      ['update-ref', '-m', `commit: ${text.split('\n')[0]}`, 'HEAD', commit, parent!],
      'committing',
    ).then(() => undefined);
    branchMoved.catch(() => undefined);
    // HEAD is the new commit once the branch has moved; a failed move makes the next commit ask git.
    const moved = branchMoved.then(() => `${commit}\n${tree}`);
    moved.catch(() => {
      if (this.#head === moved) this.#head = null;
    });
    this.#head = moved;
    return { committed: true, commit, branchMoved };
  }

  #readHead(): Promise<string> {
    if (this.#head === null) {
      const reading = this.git(['rev-parse', 'HEAD', 'HEAD^{tree}'], 'reading the branch').then((r) =>
        r.stdout.trim(),
      );
      // A failure is the commit's to report; asked early, it is asked again then.
      reading.catch(() => {
        if (this.#head === reading) this.#head = null;
      });
      this.#head = reading;
    }
    return this.#head;
  }

  /**
   * Stages `paths` (just changed by a tool) and writes the index's tree in the background, while
   * the model goes on: the commit then has only what changed after it left to stage
   * (docs/agent-jobs.md, "Staged while the model works"). A path changed again meanwhile is
   * staged again by the commit; a failure here (a file created, then deleted) is left to it too.
   */
  stageSoon(paths: readonly string[]): void {
    if (paths.length === 0 || paths.length > MAX_STAGED_PATHS) return;
    const changes = paths.map((path) => [path, (this.#changes.get(path) ?? 0) + 1] as const);
    for (const [path, count] of changes) this.#changes.set(path, count);
    void this.#readHead().catch(() => undefined);
    this.#staging = this.#staging.then(async () => {
      try {
        this.#indexVersion += 1;
        await this.indexGit(['--literal-pathspecs', 'add', '--all', '--', ...paths], 'staging the changes');
        for (const [path, count] of changes) this.#staged.set(path, count);
        const version = this.#indexVersion;
        const tree = (await this.indexGit(['write-tree'], 'writing the tree')).stdout.trim();
        this.#earlyTree = { tree, indexVersion: version };
      } catch {
        // Left to the commit.
      }
    });
  }

  /** Resolves once the early staging asked so far has ended (done, or left to the commit). */
  async earlyStaging(): Promise<void> {
    await this.#staging;
  }

  private async stage(paths: readonly string[] | undefined): Promise<void> {
    const all = ['add', '--all', '--', '.'];
    if (paths === undefined || paths.length > MAX_STAGED_PATHS) {
      this.#indexVersion += 1;
      await this.indexGit(all, 'staging the changes');
      return;
    }
    if (paths.length === 0) return;
    this.#indexVersion += 1;
    // Literal pathspecs: a file named "*.md" is that file, not a glob. A path that no longer
    // exists and never was committed (created, then deleted) makes git refuse the whole list;
    // staging everything is then the safe answer.
    try {
      await this.indexGit(['--literal-pathspecs', 'add', '--all', '--', ...paths], 'staging the changes');
    } catch (error) {
      if (!(error instanceof WorkspaceFailure) || error.kind !== 'git_failed') throw error;
      await this.indexGit(all, 'staging the changes');
    }
  }

  /**
   * The branch's changes against its base, as a unified diff (what the pull request shows); `head`
   * names the branch's commit when the branch may not have moved to it yet (makeCommit).
   */
  async diff(head = 'HEAD'): Promise<string> {
    const result = await this.git(
      [
        'diff',
        '--no-color',
        '--no-ext-diff',
        '--no-textconv',
        '--find-renames',
        `${this.baseCommit}...${head}`,
      ],
      'computing the diff',
    );
    return result.stdout;
  }

  /** The base commit's files (regular files only): path → blob id. For the docs checks' base. */
  async baseFiles(): Promise<Map<string, string>> {
    const result = await this.git(
      ['ls-tree', '-r', '-z', '--full-tree', this.baseCommit],
      'listing the base',
    );
    const files = new Map<string, string>();
    for (const entry of result.stdout.split('\0')) {
      // "<mode> blob <oid>\t<path>"; symlinks (120000) and submodules (160000) are left out.
      const match = /^100[0-9]{3} blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
      if (match) files.set(match[2]!, match[1]!);
    }
    return files;
  }

  /**
   * A file's content at the base, by its blob id, as text. Read in the mirror, which outlives
   * this worktree: the docs checks keep a base for later jobs.
   */
  async blobText(oid: string): Promise<string> {
    return (await this.mirrorGit(['cat-file', 'blob', oid], 'reading a base file')).stdout;
  }

  private mirrorGit(args: string[], action: string, okExitCodes?: number[]) {
    return runGit(this.init.context, args, {
      cwd: this.init.mirrorPath,
      action,
      unlocked: true,
      okExitCodes,
    });
  }

  /**
   * The base commit's files whose content contains `text` (a fixed string, not a pattern); in the
   * mirror. `pathspecs` (e.g. "*.md") limits the files searched: git then inflates only those.
   */
  async grepBase(text: string, pathspecs: readonly string[] = []): Promise<string[]> {
    const result = await this.mirrorGit(
      ['grep', '-l', '-z', '-F', '--no-color', '-I', '-e', text, this.baseCommit, '--', ...pathspecs],
      'searching the base',
      [1],
    );
    const prefix = `${this.baseCommit}:`;
    return result.stdout
      .split('\0')
      .filter(Boolean)
      .map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line));
  }

  /**
   * The lines of the base's text files matching `pathspecs` (`literal`: exact paths, else git
   * globs), in the mirror: path → lines. One `git grep` printing every line under a heading per
   * file; binary files (as grep -I tells them) and empty ones are absent. A heading is the line
   * "<base commit>:<path>", which no file of that commit can hold (its text would have to contain
   * the id of a commit made from it). A path holding a newline would read as two lines: callers
   * leave such bases alone. Throws when the output passes BASE_LINES_MAX_BYTES.
   */
  async baseLines(pathspecs: readonly string[], literal: boolean): Promise<Map<string, string[]>> {
    const result = await runGit(
      this.init.context,
      [
        ...(literal ? ['--literal-pathspecs'] : []),
        'grep',
        '--heading',
        '--no-color',
        '-I',
        '-e',
        '',
        this.baseCommit,
        '--',
        ...pathspecs,
      ],
      {
        cwd: this.init.mirrorPath,
        action: 'reading the base',
        unlocked: true,
        okExitCodes: [1],
        maxStdoutBytes: BASE_LINES_MAX_BYTES,
      },
    );
    if (result.truncated) throw new Error('the base is too large to read at once');
    const prefix = `${this.baseCommit}:`;
    const lines = new Map<string, string[]>();
    let current: string[] | null = null;
    for (const line of result.stdout.split('\n')) {
      if (line.startsWith(prefix)) {
        current = [];
        lines.set(line.slice(prefix.length), current);
      } else if (current) current.push(line);
      else if (line !== '') throw new Error('the base could not be read back');
    }
    return lines;
  }

  /** Every path whose content differs from the base now: edited, created, deleted, not yet committed or committed. */
  async changedSinceBase(): Promise<string[]> {
    const [tracked, untracked] = await Promise.all([
      this.git(['diff', '--name-only', '-z', '--no-renames', this.baseCommit, '--'], 'listing changes'),
      this.git(['ls-files', '-z', '--others', '--exclude-standard'], 'listing new files'),
    ]);
    return [...new Set([...tracked.stdout.split('\0'), ...untracked.stdout.split('\0')].filter(Boolean))];
  }

  /** The commit the branch points at (what a push sends). */
  async headCommit(): Promise<string> {
    return (await this.git(['rev-parse', 'HEAD'], 'reading the branch')).stdout.trim();
  }

  /** Commits on the branch that its base does not have (0: the branch adds nothing). */
  async commitsAhead(): Promise<number> {
    const result = await this.git(['rev-list', '--count', `${this.baseCommit}..HEAD`], 'counting commits');
    return Number(result.stdout.trim());
  }

  /**
   * Pushes the branch. To the URL rather than the `origin` remote, so git does not also update
   * refs/remotes/origin/* in the shared mirror outside the mirror lock. Never forced: a branch
   * that moved meanwhile is a push_rejected failure, not overwritten. `head`: as for diff().
   */
  async push(head = 'HEAD'): Promise<void> {
    if (await this.#pushByRequest(head)) return;
    await this.git(
      ['push', '--quiet', '--no-verify', this.init.repositoryUrl, `${head}:refs/heads/${this.branch}`],
      'pushing the branch',
    );
  }

  /**
   * The common case of push(), without `git push`: a branch the host does not have yet, pushed
   * by its commit id, as one pack (`git pack-objects`) in one request (push-request.ts,
   * docs/agent-jobs.md "The push by one request"). False, with nothing changed on the host or
   * with the ref already set there, whenever `git push` is to do it: a follow-up's branch (its
   * old value would have to be known), no address policy, proxy variables (which only git
   * honours), a SHA-256 repository, a pack that could not be made, any answer but a clean one.
   */
  async #pushByRequest(head: string): Promise<boolean> {
    const { policy, repositoryUrl, context } = this.init;
    if (this.branchOnHost || !policy || !canProbe()) return false;
    if (!SHA1_ID.test(head) || !SHA1_ID.test(this.baseCommit) || pushLeftToGit(repositoryUrl)) return false;
    let pack: Buffer;
    try {
      // Not thin (deltas against objects the host has): the host's capabilities are not known.
      const packed = await runGit(context, ['pack-objects', '--stdout', '--revs', '--quiet'], {
        cwd: this.path,
        action: 'packing the commits',
        unlocked: true,
        stdin: `${head}\n^${this.baseCommit}\n`,
        binaryStdout: true,
        maxStdoutBytes: MAX_PACK_BYTES,
      });
      if (packed.truncated || packed.stdoutBytes === undefined) return false;
      pack = packed.stdoutBytes;
    } catch (error) {
      if (!(error instanceof WorkspaceFailure)) throw error;
      return false;
    }
    return pushByRequest({
      repositoryUrl,
      authorization: context.authorization,
      ref: `refs/heads/${this.branch}`,
      commit: head,
      pack,
      policy,
      signal: context.signal,
    });
  }

  /**
   * Removes the worktree and its local branch (the pushed branch stays on the code host). The
   * worktree is kept for the next job on the repository when the pool has room
   * (idle-worktrees.ts); otherwise it is renamed away and git's record of it pruned under the
   * mirror lock, and its files are deleted in the background (trash.ts).
   */
  async remove(): Promise<void> {
    const { context, mirrorPath, lockPath, lockTimeoutMs, pool } = this.init;
    // Staging under way holds the index: it ends (or is aborted with the job) first.
    await this.#staging;
    // Removal must happen even when the job was cancelled: run without the job's abort signal.
    const quiet = { ...context, signal: undefined };
    const trash = await withMirrorLock(
      lockPath,
      async () => {
        // Replaced meanwhile by a later run of the job (which trashed this one): not ours to touch.
        if (!(await isWorktreeMarked(this.path, this.init.mark))) return null;
        // A kept worktree's next job starts from its own index; a deleted one takes it along.
        const ownIndex = this.init.freshCheckout ? await this.#ownIndexPath() : null;
        if (ownIndex !== null) await unlink(ownIndex).catch(() => undefined);
        if (await parkWorktree(quiet, mirrorPath, pool, this.path, this.init.baseCommit)) {
          await runGit(quiet, ['branch', '--quiet', '-D', this.branch], {
            cwd: mirrorPath,
            action: 'deleting the local branch',
          }).catch(() => undefined);
          return null;
        }
        const moved = await moveToTrash(this.path);
        await runGit(quiet, ['worktree', 'prune'], { cwd: mirrorPath, action: 'pruning worktrees' });
        await runGit(quiet, ['branch', '--quiet', '-D', this.branch], {
          cwd: mirrorPath,
          action: 'deleting the local branch',
        }).catch(() => undefined);
        return moved;
      },
      { timeoutMs: lockTimeoutMs },
    );
    if (trash) deleteInBackground(trash);
  }
}

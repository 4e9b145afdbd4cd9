// A few finished worktrees per repository are kept instead of deleted, and the next job on the
// same repository starts from one of them. Checking out a whole repository is the biggest cost
// of a job on a cached mirror (10,000 files written, then deleted again); switching a kept
// worktree to the next job's commit rewrites only the files that differ.
//
// A reused worktree must be indistinguishable from a fresh one. When it is kept (after the
// previous job's outcome is recorded, off the next job's path) it is cleaned with `clean -ffdx`
// (untracked and ignored files removed) and checked out with --force, detached, at the commit the
// previous job started from (its edits discarded): the likeliest start of the next job, since the
// base branch moves only when something is merged. The next job moves it into its own path with
// `git worktree move` (git's record follows). If it already is at the job's start commit, only
// the job's branch is set (written as update-ref writes it, and HEAD pointed at it as
// symbolic-ref would, both without starting git: no file or index is touched, ~20 ms less on a
// 10,000-file tree, bench/agent.ts); otherwise it is checked out with --force at the start commit.
//
// A kept worktree is named "<key>.<time>-<job>.<commit>": the repository it belongs to, an order
// (oldest first), and the commit it is checked out at. If any step fails, the worktree is thrown
// away and a fresh one is added. All of it runs under the mirror lock.
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type GitContext, runGit } from './git-command.ts';
import { deleteInBackground, moveToTrash } from './trash.ts';
import { worktreeGitDir } from './worktree-git-dir.ts';

export interface IdlePool {
  /** Where kept worktrees wait (<worktreesDir>/.idle). */
  dir: string;
  /** Names a kept worktree after its repository's mirror, so a job takes only its own. */
  key: string;
  /** How many to keep per repository; 0 turns reuse off. */
  max: number;
}

export function idlePoolFor(worktreesDir: string, mirrorPath: string, max: number): IdlePool {
  return { dir: join(worktreesDir, '.idle'), key: basename(mirrorPath, '.git'), max };
}

async function entries(pool: IdlePool): Promise<string[]> {
  try {
    return (await readdir(pool.dir)).filter((name) => name.startsWith(`${pool.key}.`)).sort();
  } catch {
    return [];
  }
}

/** The commit a kept worktree is checked out at: the last part of its name. */
function parkedCommit(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * Moves a kept worktree to `path` and puts it on `branch` at `startCommit`, exactly. False when
 * none was kept (or the one found was broken and has been thrown away).
 */
export async function takeIdleWorktree(
  context: GitContext,
  mirrorPath: string,
  pool: IdlePool,
  path: string,
  branch: string,
  startCommit: string,
): Promise<boolean> {
  const names = await entries(pool);
  // One already at the start commit if there is one, else the oldest.
  const ready = names.find((n) => parkedCommit(n) === startCommit);
  const name = ready ?? names[0];
  if (name === undefined) return false;
  const idle = join(pool.dir, name);
  try {
    await runGit(context, ['worktree', 'move', idle, path], {
      cwd: mirrorPath,
      action: 'reusing a worktree',
    });
    if (ready !== undefined) {
      // Files and index already are the commit's: only the branch is made (as -B would, reset
      // if an earlier attempt left it) and the worktree's HEAD pointed at it. HEAD may name the
      // branch before it exists, so both run at once.
      await Promise.all([
        writeBranchRef(mirrorPath, branch, startCommit).then(async (done) => {
          if (done) return;
          await runGit(context, ['update-ref', `refs/heads/${branch}`, startCommit], {
            cwd: path,
            action: 'checking out the worktree',
          });
        }),
        pointHeadAt(path, branch).then(async (done) => {
          if (done) return;
          await runGit(context, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`], {
            cwd: path,
            action: 'checking out the worktree',
          });
        }),
      ]);
    } else {
      await runGit(context, ['checkout', '--quiet', '--force', '--no-track', '-B', branch, startCommit], {
        cwd: path,
        action: 'checking out the worktree',
      });
    }
    return true;
  } catch {
    for (const leftover of [idle, path]) {
      const trash = await moveToTrash(leftover);
      if (trash) deleteInBackground(trash);
    }
    await runGit(context, ['worktree', 'prune'], { cwd: mirrorPath, action: 'pruning worktrees' });
    return false;
  }
}

/**
 * Points a parked worktree's HEAD at `refs/heads/<branch>` the way `git symbolic-ref` does (the
 * text "ref: <ref>" written to HEAD.lock, renamed over HEAD), without starting git: one process
 * less on the way to the job's first tool call (~5 ms). Only where HEAD is the plain file of git's
 * files ref storage holding the commit a parked worktree is detached at; anything else (another
 * ref storage, a lock held, an unexpected .git) answers false and git does it.
 */
async function pointHeadAt(path: string, branch: string): Promise<boolean> {
  try {
    const gitDir = await worktreeGitDir(path);
    if (gitDir === null) return false;
    const head = join(gitDir, 'HEAD');
    if (!/^([0-9a-f]{40}|[0-9a-f]{64})\n$/.test(await readFile(head, 'utf8'))) return false;
    await replaceUnderLock(head, `ref: refs/heads/${branch}\n`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Replaces `file` the way git's files storage does: the text written to `<file>.lock` (which must
 * not exist: another writer holds it), then renamed over the file; the lock is removed if the
 * rename fails.
 */
async function replaceUnderLock(file: string, text: string): Promise<void> {
  const lock = `${file}.lock`;
  await writeFile(lock, text, { flag: 'wx' });
  try {
    await rename(lock, file);
  } catch (error) {
    await unlink(lock).catch(() => undefined);
    throw error;
  }
}

/**
 * Sets the job's branch, refs/heads/<branch>, to `commit` the way `git update-ref` does in the
 * files ref storage (the id written to `<ref>.lock`, renamed over the loose ref file), without
 * starting git: one process less on the way to the job's first tool call (~5–10 ms). A loose
 * ref wins over packed-refs, so a branch left packed by an earlier attempt is reset, as -B
 * would. The mirror is bare, where git keeps no reflog for branches (core.logAllRefUpdates is
 * false there), so there is none to write. Only in the files storage (refs/heads a directory, no
 * reftable), and only when no other ref is in the way of the name (a ref named like one of its
 * parent directories, or one under it, loose or packed, which git would refuse): otherwise false,
 * and git does it.
 */
async function writeBranchRef(mirrorPath: string, branch: string, commit: string): Promise<boolean> {
  try {
    const ref = `refs/heads/${branch}`;
    if (!(await stat(join(mirrorPath, 'refs', 'heads'))).isDirectory()) return false;
    if (
      await stat(join(mirrorPath, 'reftable')).then(
        () => true,
        () => false,
      )
    )
      return false;
    const packed = await readFile(join(mirrorPath, 'packed-refs'), 'utf8').catch(() => '');
    const parents = ref
      .split('/')
      .slice(2, -1)
      .map((_, i, parts) => `refs/heads/${parts.slice(0, i + 1).join('/')}`);
    if (parents.some((parent) => packed.includes(` ${parent}\n`)) || packed.includes(` ${ref}/`))
      return false;
    const file = join(mirrorPath, ref);
    // Fails on a loose ref named like a parent directory (a file in the way).
    await mkdir(dirname(file), { recursive: true });
    // The rename fails when the name is a directory (refs under it): git would refuse too.
    await replaceUnderLock(file, `${commit}\n`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Keeps a finished worktree for the next job when the pool has room: cleaned, and checked out
 * detached at `restCommit` (so the job's branch can be deleted and the next job starting there
 * has nothing to check out), then moved into the pool. False when it was not kept.
 */
export async function parkWorktree(
  context: GitContext,
  mirrorPath: string,
  pool: IdlePool,
  path: string,
  restCommit: string,
): Promise<boolean> {
  if (pool.max <= 0 || (await entries(pool)).length >= pool.max) return false;
  const idle = join(pool.dir, `${pool.key}.${Date.now().toString(36)}-${basename(path)}.${restCommit}`);
  try {
    await mkdir(pool.dir, { recursive: true, mode: 0o700 });
    await runGit(context, ['clean', '-ffdxq'], { cwd: path, action: 'cleaning the worktree' });
    await runGit(context, ['checkout', '--quiet', '--force', '--detach', restCommit], {
      cwd: path,
      action: 'resetting the worktree',
    });
    await runGit(context, ['worktree', 'move', path, idle], {
      cwd: mirrorPath,
      action: 'keeping the worktree',
    });
    return true;
  } catch {
    return false;
  }
}

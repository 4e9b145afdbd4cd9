// A few finished worktrees per repository are kept instead of deleted, and the next job on the
// same repository starts from one of them. Checking out a whole repository is the biggest cost
// of a job on a cached mirror (10,000 files written, then deleted again); switching a kept
// worktree to the next job's commit rewrites only the files that differ.
//
// A reused worktree must be indistinguishable from a fresh one: it is cleaned with `clean -ffdx`
// (untracked and ignored files removed) when it is kept, which happens after the previous job's
// outcome is recorded, off the next job's path; the next job moves it into its own path with
// `git worktree move` (git's record follows) and checks it out with --force at its start commit
// (local edits of the previous job discarded). A kept worktree is named "<key>.<time>-<job>":
// only worktrees kept this way are taken (ones kept by earlier versions, "<key>-…", were cleaned
// by the taker and are left alone). If any step fails, the worktree is thrown away and a fresh one
// is added. All of it runs under the mirror lock.
import { mkdir, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type GitContext, runGit } from './git-command.ts';
import { deleteInBackground, moveToTrash } from './trash.ts';

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
  const [name] = await entries(pool);
  if (name === undefined) return false;
  const idle = join(pool.dir, name);
  try {
    await runGit(context, ['worktree', 'move', idle, path], {
      cwd: mirrorPath,
      action: 'reusing a worktree',
    });
    await runGit(context, ['checkout', '--quiet', '--force', '--no-track', '-B', branch, startCommit], {
      cwd: path,
      action: 'checking out the worktree',
    });
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
 * Keeps a finished worktree for the next job when the pool has room: detached from the job's
 * branch (so the branch can be deleted) and moved into the pool. False when it was not kept.
 */
export async function parkWorktree(
  context: GitContext,
  mirrorPath: string,
  pool: IdlePool,
  path: string,
): Promise<boolean> {
  if (pool.max <= 0 || (await entries(pool)).length >= pool.max) return false;
  const idle = join(pool.dir, `${pool.key}.${Date.now().toString(36)}-${basename(path)}`);
  try {
    await mkdir(pool.dir, { recursive: true });
    // Cleaned now, so the next job need not: only what a checkout resets is left to it.
    await runGit(context, ['clean', '-ffdxq'], { cwd: path, action: 'cleaning the worktree' });
    // Detached by rewriting HEAD only: a checkout would stat every file for nothing.
    await runGit(context, ['update-ref', '--no-deref', 'HEAD', 'HEAD'], {
      cwd: path,
      action: 'detaching the worktree',
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

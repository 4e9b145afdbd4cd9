// Which run a worktree belongs to. A job's worktree lives at <worktreesDir>/<jobId>, and the run
// removes it after its outcome is recorded. By then a follow-up of the same job may already run in
// another process sharing the data directory, and may have replaced the worktree at that path
// (the old one goes to the trash); the old run's removal must then leave the new worktree alone.
// The mark is a file in the worktree's git administrative directory (<mirror>/worktrees/<name>/):
// the tools cannot reach it (.git is refused), and git deletes it with the worktree's record.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const MARK_FILE = 'docwright-run';

/** The worktree's administrative directory, from its .git file; null when there is none. */
async function adminDirectory(worktree: string): Promise<string | null> {
  try {
    const match = /^gitdir: (.+)$/m.exec(await readFile(join(worktree, '.git'), 'utf8'));
    return match ? resolve(worktree, match[1]!.trim()) : null;
  } catch {
    return null;
  }
}

/** Marks the worktree at `worktree` as this run's; returns the run's mark. Call under the mirror lock. */
export async function markWorktree(worktree: string): Promise<string> {
  const admin = await adminDirectory(worktree);
  if (admin === null) throw new Error(`${worktree} is not a git worktree`);
  const mark = randomBytes(12).toString('hex');
  await writeFile(join(admin, MARK_FILE), mark);
  return mark;
}

/** Whether the worktree now at `worktree` is still the one marked with `mark`. */
export async function isWorktreeMarked(worktree: string, mark: string): Promise<boolean> {
  const admin = await adminDirectory(worktree);
  if (admin === null) return false;
  try {
    return (await readFile(join(admin, MARK_FILE), 'utf8')) === mark;
  } catch {
    return false;
  }
}

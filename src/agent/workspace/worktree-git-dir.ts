// Where a linked worktree's own git directory is: its `.git` is a file "gitdir: <path>", the path
// absolute or (git 2.48's worktree.useRelativePaths) relative to the worktree.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The worktree's git directory, or null when `.git` is missing or not git's link file. */
export async function worktreeGitDir(worktree: string): Promise<string | null> {
  const link = /^gitdir: (.+)\n?$/.exec(await readFile(join(worktree, '.git'), 'utf8').catch(() => ''));
  return link ? resolve(worktree, link[1]!) : null;
}

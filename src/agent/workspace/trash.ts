// Removing a worktree means deleting every file of the repository, which takes a while on a
// large one. The worktree is renamed to a trash name at once (its git metadata is then pruned)
// and deleted without the job waiting; trash a crash left behind is swept when a workspace opens.
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TRASH_PREFIX = '.trash-';

/** Moves `path` to a trash name beside it; null when there was nothing to move. */
export async function moveToTrash(path: string): Promise<string | null> {
  const trash = join(dirname(path), `${TRASH_PREFIX}${basename(path)}-${randomBytes(4).toString('hex')}`);
  try {
    await rename(path, trash);
    return trash;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Deletes a trashed worktree in the background; a failure is left for the next sweep. */
export function deleteInBackground(trash: string): void {
  void rm(trash, { recursive: true, force: true }).catch(() => undefined);
}

/** Deletes whatever trash is left in `dir` (never throws). */
export async function sweepTrash(dir: string): Promise<void> {
  try {
    const names = (await readdir(dir)).filter((name) => name.startsWith(TRASH_PREFIX));
    await Promise.all(
      names.map((name) => rm(join(dir, name), { recursive: true, force: true }).catch(() => undefined)),
    );
  } catch {
    // The directory is gone or unreadable: nothing to sweep.
  }
}

// The data directory holds repository mirrors and job worktrees (private documentation), and on
// the embedded database also the database, its secret key and the control socket: owner only.
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * Creates dir with mode 0700, or takes group and other access away from an existing one. A
 * directory that another user owns (a volume mounted for this process) cannot be changed, and is
 * that user's choice: it is left as it is rather than refusing to start.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

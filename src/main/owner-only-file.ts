// Secrets that are shown once (the first-start admin key, the dashboard's setup link) go to a file
// that only the server's user can read when no person watches the output: under systemd or
// docker, stdout is a journal that many can read and that keeps everything.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes text to dir/name readable by the owner only, replacing an older file; returns its path. */
export function writeOwnerOnlyFile(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  // Removed first: a mode only applies to a file being created, and an older copy may be wider.
  rmSync(path, { force: true });
  writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
  return path;
}

export function removeFile(dir: string, name: string): void {
  rmSync(join(dir, name), { force: true });
}

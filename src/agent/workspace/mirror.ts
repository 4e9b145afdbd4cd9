// The cached copy of one repository that every job on it starts from.
//
// Shape: a bare repository, made a partial clone (--filter=blob:none: commits and trees now, file
// contents only when a checkout needs them), whose fetch refspec keeps the remote's branches under
// refs/remotes/origin/*. Not `clone --mirror`: a mirror fetch owns refs/heads/* (and GitHub's
// refs/pull/*) and would overwrite or prune the job branches that live there while their worktrees
// are checked out. Not `clone --bare` either, which also fills refs/heads/* from the remote. So it
// is `init --bare` + a remote + `fetch --filter=blob:none`, which registers the partial-clone
// settings (extensions.partialClone, remote.origin.promisor) the way clone does.
//
// A new mirror is built in a temporary directory and renamed into place, so a crash half-way
// leaves no half mirror behind; all changes happen under the mirror lock (mirror-lock.ts).
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkspaceFailure } from './failures.ts';
import { type GitContext, runGit } from './git-command.ts';

export function mirrorPathFor(cacheDir: string, repositoryUrl: string): string {
  return join(cacheDir, `${createHash('sha256').update(repositoryUrl).digest('hex').slice(0, 32)}.git`);
}

export function lockPathFor(mirrorPath: string): string {
  return `${mirrorPath}.lock`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Clones the mirror when there is none, fetches it otherwise. Call under the mirror lock. */
export async function refreshMirror(
  context: GitContext,
  mirrorPath: string,
  repositoryUrl: string,
): Promise<{ cloned: boolean }> {
  if (await exists(mirrorPath)) {
    await runGit(context, ['fetch', '--quiet', '--prune', '--no-tags', 'origin'], {
      cwd: mirrorPath,
      action: 'fetching the repository',
    });
    return { cloned: false };
  }
  const cacheDir = join(mirrorPath, '..');
  await mkdir(cacheDir, { recursive: true });
  const building = `${mirrorPath}.new-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  try {
    await runGit(context, ['init', '--quiet', '--bare', building], {
      cwd: cacheDir,
      action: 'creating the cache',
    });
    const config = (key: string, value: string) =>
      runGit(context, ['config', key, value], { cwd: building, action: 'configuring the cache' });
    await config('remote.origin.url', repositoryUrl);
    await config('remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*');
    await runGit(context, ['fetch', '--quiet', '--filter=blob:none', '--no-tags', 'origin'], {
      cwd: building,
      action: 'cloning the repository',
    });
    await rename(building, mirrorPath);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  return { cloned: true };
}

/**
 * The remote's default branch (what its HEAD points to), asked of the remote itself each time (a
 * project may rename it). By URL, so it needs no mirror and can run while the mirror is cloned.
 */
export async function remoteDefaultBranch(
  context: GitContext,
  cwd: string,
  repositoryUrl: string,
): Promise<string> {
  const { stdout } = await runGit(context, ['ls-remote', '--symref', repositoryUrl, 'HEAD'], {
    cwd,
    action: 'finding the default branch',
    unlocked: true,
  });
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(stdout);
  if (!match)
    throw new WorkspaceFailure('ref_not_found', 'The repository has no default branch (is it empty?).');
  return match[1]!;
}

/** The commit `ref` names: a branch of the remote, else anything the remote resolves (tag, commit). */
export async function resolveStartCommit(
  context: GitContext,
  mirrorPath: string,
  ref: string,
): Promise<string> {
  const branch = await runGit(
    context,
    ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${ref}^{commit}`],
    {
      cwd: mirrorPath,
      action: 'resolving the ref',
      okExitCodes: [1],
    },
  );
  if (branch.exitCode === 0) return branch.stdout.trim();
  // Tags and commits are not kept in the mirror; fetch just this one (under the lock: FETCH_HEAD
  // is shared).
  try {
    await runGit(context, ['fetch', '--quiet', '--no-tags', 'origin', ref], {
      cwd: mirrorPath,
      action: `fetching ${ref}`,
    });
  } catch (error) {
    if (error instanceof WorkspaceFailure && error.kind === 'git_failed')
      throw new WorkspaceFailure('ref_not_found', `The ref "${ref}" was not found in the repository.`);
    throw error;
  }
  const fetched = await runGit(context, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], {
    cwd: mirrorPath,
    action: 'resolving the ref',
  });
  return fetched.stdout.trim();
}

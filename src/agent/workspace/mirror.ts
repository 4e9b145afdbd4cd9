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
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboundPolicy } from '../../net/outbound-http/index.ts';
import { WorkspaceFailure } from './failures.ts';
import { type GitContext, runGit } from './git-command.ts';
import { canProbe, remoteRefs } from './remote-refs.ts';

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

const BRANCHES_REFSPEC = '+refs/heads/*:refs/remotes/origin/*';
/**
 * Where a fetch puts the commit the remote's HEAD (its default branch) points to. Fetched along
 * with the branches, in the same request, rather than asked with a separate ls-remote; written
 * and read under the mirror lock, so concurrent jobs do not see each other's.
 */
const REMOTE_HEAD_REF = 'refs/docwright/remote-head';

export interface RefreshResult {
  cloned: boolean;
  /** The commit of the remote's default branch, when it was asked for. */
  remoteHead: string | null;
}

/** What a job needs from the remote. */
export interface WantedRefs {
  /** The branch the job starts from; null for the remote's default branch (its HEAD). */
  baseRef: string | null;
  /** The job's own branch, for a follow-up or a retry that continues it; else null. */
  branch: string | null;
  /** The repositories' address policy: with it, a fetch that would bring nothing is skipped. */
  policy?: OutboundPolicy | null;
}

/**
 * A fetch asks only for the branches the job needs, not for every branch: where each job pushes
 * a branch of its own, fetching all of them downloads the other jobs' work every time (a second
 * round trip with a pack; bench/agent.ts). Each is asked as the pattern "<name>*", because a
 * pattern that matches nothing is no error (a missing branch is then simply absent, and the
 * caller says ref_not_found) while a plain name is; that it may also match longer names
 * ("main-old") costs nothing. The remote's HEAD is fetched in the same request when there is no
 * base branch.
 */
function wantedRefspecs(wanted: WantedRefs): string[] {
  const pattern = (name: string) => `+refs/heads/${name}*:refs/remotes/origin/${name}*`;
  return [
    wanted.baseRef === null ? `+HEAD:${REMOTE_HEAD_REF}` : pattern(wanted.baseRef),
    ...(wanted.branch === null ? [] : [pattern(wanted.branch)]),
  ];
}

/**
 * A fetch ends by starting `git maintenance run --auto` (one more process, ~5–20 ms, on the way
 * to the job's first model request), which nearly always finds nothing to do: its thresholds are
 * thousands of loose objects, and a job adds a handful. So only every MAINTENANCE_EVERY-th fetch
 * of a mirror in this process (the first one included) lets it run; it still runs under the
 * mirror lock, in the foreground.
 */
const MAINTENANCE_EVERY = 10;
const fetchCounts = new Map<string, number>();

function maintenanceDue(mirrorPath: string): boolean {
  const count = fetchCounts.get(mirrorPath) ?? 0;
  fetchCounts.delete(mirrorPath);
  fetchCounts.set(mirrorPath, (count + 1) % MAINTENANCE_EVERY);
  // Forgets the oldest mirrors first: one forgotten simply counts from the start again.
  while (fetchCounts.size > 1000) fetchCounts.delete(fetchCounts.keys().next().value!);
  return count === 0;
}

/**
 * Clones the mirror when there is none (every branch), fetches what the job needs otherwise;
 * without a base branch, also learns the default branch's commit. Call under the mirror lock.
 */
export async function refreshMirror(
  context: GitContext,
  mirrorPath: string,
  repositoryUrl: string,
  wanted: WantedRefs,
): Promise<RefreshResult> {
  const wantRemoteHead = wanted.baseRef === null;
  // Refspecs on the command line replace the configured one, so the branches are named too.
  const allBranches = wantRemoteHead ? [BRANCHES_REFSPEC, `+HEAD:${REMOTE_HEAD_REF}`] : [BRANCHES_REFSPEC];
  const cloned = !(await exists(mirrorPath));
  if (!cloned) {
    const unchanged = await unchangedOnHost(context, mirrorPath, repositoryUrl, wanted);
    if (unchanged !== null) return { cloned, remoteHead: unchanged.remoteHead };
  }
  const skipMaintenance = !cloned && !maintenanceDue(mirrorPath);
  const fetch = (refspecs: string[]) =>
    runGit(context, ['fetch', '--quiet', '--prune', '--no-tags', 'origin', ...refspecs], {
      cwd: mirrorPath,
      action: 'fetching the repository',
      skipMaintenance,
    });
  if (cloned) await cloneMirror(context, mirrorPath, repositoryUrl, allBranches, wanted.baseRef);
  else {
    try {
      await fetch(wantedRefspecs(wanted));
    } catch (error) {
      // Tracking refs of branches outside the patterns are not pruned by them, and a stale one can
      // block a wanted one (git cannot have origin/a/b while origin/a exists): fetching every
      // branch prunes it. A refused token or an unreachable host fails this again, as it should.
      if (!(error instanceof WorkspaceFailure) || error.kind !== 'git_failed') throw error;
      await fetch(allBranches);
    }
  }
  if (!wantRemoteHead) return { cloned, remoteHead: null };
  return { cloned, remoteHead: await readFetchedRef(context, mirrorPath, REMOTE_HEAD_REF) };
}

/**
 * When the host's refs the job needs point where the mirror's copies of them already do, the
 * fetch would bring nothing: one ls-refs request (remote-refs.ts) answers that without starting
 * git, and the fetch is skipped. The request carries the job's credential like the fetch, so it
 * is the same check that the host lets the job read the repository, made at the same moment.
 * Null (fetch as before) when anything differs, is missing on either side, or the host's answer
 * could not be had: a refused token, a moved or deleted branch and every other case go through
 * git as they did. Only exact names are compared; the fetch's patterns also refresh longer names,
 * which no job reads.
 */
async function unchangedOnHost(
  context: GitContext,
  mirrorPath: string,
  repositoryUrl: string,
  wanted: WantedRefs,
): Promise<{ remoteHead: string | null } | null> {
  if (!wanted.policy || !canProbe()) return null;
  // The host's name for each ref the job needs, and where the mirror keeps its copy.
  const pairs: [string, string][] = [
    wanted.baseRef === null
      ? ['HEAD', REMOTE_HEAD_REF]
      : [`refs/heads/${wanted.baseRef}`, `refs/remotes/origin/${wanted.baseRef}`],
    ...(wanted.branch === null
      ? []
      : [[`refs/heads/${wanted.branch}`, `refs/remotes/origin/${wanted.branch}`] as [string, string]]),
  ];
  const local: string[] = [];
  for (const [, mirrorRef] of pairs) {
    const id = await storedRef(mirrorPath, mirrorRef);
    if (id === null) return null;
    local.push(id);
  }
  const remote = await remoteRefs(
    repositoryUrl,
    context.authorization,
    pairs.map(([hostRef]) => hostRef),
    wanted.policy,
    context.signal,
  );
  if (remote === null) return null;
  if (!pairs.every(([hostRef], i) => remote.get(hostRef) === local[i])) return null;
  return { remoteHead: wanted.baseRef === null ? local[0]! : null };
}

/**
 * A ref's object id from its loose file, else from packed-refs (where `git maintenance` and
 * `pack-refs` move them), without starting git; null when it is in neither.
 */
async function storedRef(mirrorPath: string, ref: string): Promise<string | null> {
  const loose = await looseRef(mirrorPath, ref);
  if (loose !== null) return loose;
  // A loose file that exists but holds something else (a symbolic ref) is not read past.
  if (await exists(join(mirrorPath, ref))) return null;
  const packed = await readFile(join(mirrorPath, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(line);
    if (match?.[2] === ref) return match[1]!;
  }
  return null;
}

/**
 * The object id in a ref's loose file, or null. A fetch writes the refs it updates as loose files
 * holding the id, so right after one this answers without starting git (a git process costs
 * ~5 ms, and this is on the way to the job's first model request). Null (ask git) when there is
 * no such file (refs packed since, another ref storage) or it holds something else (a symbolic
 * ref). A loose file always wins over packed-refs, so when it is there it is the ref's value.
 */
async function looseRef(mirrorPath: string, ref: string): Promise<string | null> {
  const text = await readFile(join(mirrorPath, ref), 'utf8').catch(() => '');
  return /^([0-9a-f]{40}|[0-9a-f]{64})\n$/.test(text) ? text.trim() : null;
}

async function readFetchedRef(context: GitContext, mirrorPath: string, ref: string): Promise<string> {
  const loose = await looseRef(mirrorPath, ref);
  if (loose !== null) return loose;
  const head = await runGit(context, ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: mirrorPath,
    action: 'reading the default branch',
  });
  return head.stdout.trim();
}

async function cloneMirror(
  context: GitContext,
  mirrorPath: string,
  repositoryUrl: string,
  refspecs: string[],
  baseRef: string | null,
) {
  const cacheDir = join(mirrorPath, '..');
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const building = `${mirrorPath}.new-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  const tip = prefetchTip(context, `${mirrorPath}.tip-${process.pid}`, repositoryUrl, baseRef);
  try {
    await runGit(context, ['init', '--quiet', '--bare', building], {
      cwd: cacheDir,
      action: 'creating the cache',
    });
    const config = (key: string, value: string) =>
      runGit(context, ['config', key, value], { cwd: building, action: 'configuring the cache' });
    await config('remote.origin.url', repositoryUrl);
    await config('remote.origin.fetch', BRANCHES_REFSPEC);
    await runGit(context, ['fetch', '--quiet', '--filter=blob:none', '--no-tags', 'origin', ...refspecs], {
      cwd: building,
      action: 'cloning the repository',
    });
    await tip.adopt(building);
    await rename(building, mirrorPath);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  } finally {
    await tip.discard();
  }
}

/**
 * The file contents of the branch's tip, fetched beside the clone's `--filter=blob:none` fetch.
 * The partial clone's first checkout otherwise fetches them itself, after the clone and one after
 * the other: a second `git fetch` naming every blob id, whose pack the host builds blob by blob
 * (~320 ms of a ~510 ms `worktree add` for 10,000 files, against ~140 ms for a whole plain clone;
 * docs/agent-jobs.md "The first job, step by step"). Here a shallow fetch of the tip (`--depth=1`,
 * no filter) runs at the same time, into a repository of its own (the mirror must not become
 * shallow), and its pack is then moved into the mirror marked as the promisor remote's, exactly
 * as the checkout's own fetch would have left it. The mirror holds nothing more than after that
 * checkout: history's file contents are still never fetched.
 *
 * Only a speed-up: any failure (no such branch, a tag or commit as the base, a refused token) is
 * ignored, and the checkout fetches whatever is missing as before; so is a tip that moved
 * between the two fetches. The clone's own fetch reports failures as it always did.
 */
function prefetchTip(context: GitContext, dir: string, repositoryUrl: string, baseRef: string | null) {
  const fetched = (async () => {
    await rm(dir, { recursive: true, force: true });
    await runGit(context, ['init', '--quiet', '--bare', dir], {
      cwd: join(dir, '..'),
      action: 'creating the cache',
    });
    // A pack however few objects come, never loose objects: the pack is what is moved over.
    await appendFile(join(dir, 'config'), '[fetch]\n\tunpackLimit = 1\n');
    // To the URL, not a remote: nothing is configured in this throwaway repository.
    await runGit(
      context,
      [
        'fetch',
        '--quiet',
        '--depth=1',
        '--no-tags',
        repositoryUrl,
        baseRef === null ? 'HEAD' : `refs/heads/${baseRef}`,
      ],
      { cwd: dir, action: 'fetching the files', skipMaintenance: true },
    );
    return true;
  })().catch(() => false);
  return {
    /** Moves the tip's pack into the mirror being built; does nothing when the prefetch failed. */
    async adopt(mirror: string): Promise<void> {
      if (!(await fetched)) return;
      const packs = join(dir, 'objects', 'pack');
      for (const name of await readdir(packs).catch(() => [] as string[])) {
        const match = /^(pack-[0-9a-f]+)\.pack$/.exec(name);
        if (!match) continue;
        const target = join(mirror, 'objects', 'pack', match[1]!);
        // The .promisor file first, then the pack, its index last: git finds a pack by its index,
        // and the pack is then already one the partial clone may lazily fill in around.
        await writeFile(`${target}.promisor`, '');
        await rename(join(packs, name), `${target}.pack`);
        await rename(join(packs, `${match[1]}.idx`), `${target}.idx`);
      }
    },
    async discard(): Promise<void> {
      await fetched;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The commit `ref` names: a branch of the remote, else anything the remote resolves (tag, commit). */
export async function resolveStartCommit(
  context: GitContext,
  mirrorPath: string,
  ref: string,
): Promise<string> {
  // checkRefName keeps `ref` a plain ref name (no "..", no leading "/" or "."), so it can name a file.
  const loose = await looseRef(mirrorPath, `refs/remotes/origin/${ref}`);
  if (loose !== null) return loose;
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
    if (error instanceof WorkspaceFailure && (error.kind === 'git_failed' || error.kind === 'ref_not_found'))
      throw new WorkspaceFailure('ref_not_found', `The ref "${ref}" was not found in the repository.`);
    throw error;
  }
  const fetched = await runGit(context, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], {
    cwd: mirrorPath,
    action: 'resolving the ref',
  });
  return fetched.stdout.trim();
}

// Reads a few files straight from the mirror at a commit, without a worktree: the repository's
// instructions for the agent can then be read while the worktree is still being prepared. Only
// regular files are read; the caller applies the tools' rules (guards.ts) and leaves to a checkout
// what only a checkout can judge (a symbolic link, which may point anywhere).
//
// What git answers here never changes for a given commit (the listing) or blob (the content), so
// both are kept for a while: a later job on the same commit reads its instructions without
// starting git at all (each git process costs ~5–10 ms, on the way to the job's first model
// request; see "Where a job's time goes" in docs/agent-jobs.md).
import { type GitContext, runGit } from './git-command.ts';

/** Listings and contents kept (a few repositories' latest commits; contents are at most 1 MiB). */
const KEPT_LISTINGS = 32;
const KEPT_CONTENTS = 8;

type Listing = Map<string, { mode: string; oid: string; size: string }>;
const listings = new Map<string, Promise<Listing>>();
const contents = new Map<string, Promise<Buffer | null>>();

/**
 * `compute`'s answer for `key`, kept (most recent last, at most `limit`); a failure is not kept. A
 * job that shares an answer still under way with another job does not inherit that job's cancel:
 * it asks git again itself.
 */
async function remembered<T>(
  cache: Map<string, Promise<T>>,
  limit: number,
  key: string,
  context: GitContext,
  compute: () => Promise<T>,
): Promise<T> {
  let found = cache.get(key);
  if (found) cache.delete(key);
  else {
    const computing = compute();
    computing.catch(() => {
      if (cache.get(key) === computing) cache.delete(key);
    });
    found = computing;
  }
  cache.set(key, found);
  while (cache.size > limit) cache.delete(cache.keys().next().value!);
  try {
    return await found;
  } catch (error) {
    if ((error as Error).name === 'AbortError' && !context.signal?.aborted) return compute();
    throw error;
  }
}

/** One candidate file at the commit: what it is, and for a regular file, a way to read it. */
export interface MirrorEntry {
  path: string;
  kind: 'file' | 'too_large' | 'symlink' | 'not_a_file' | 'missing';
  /** For a regular file: its bytes, or null when only a checkout can tell them (see below). */
  read(): Promise<Buffer | null>;
}

/**
 * What each of `paths` (root-relative) is at `commit`, in one `ls-tree`; a file's content costs
 * one `cat-file` when asked for. Content that is not valid UTF-8 reads as null: git's output
 * reaches here decoded, so only the file on disk has the exact bytes.
 */
export async function listMirrorFiles(
  context: GitContext,
  mirrorPath: string,
  commit: string,
  paths: readonly string[],
  maxBytes: number,
): Promise<MirrorEntry[]> {
  const key = [mirrorPath, commit, ...paths].join('\0');
  const entries = await remembered(listings, KEPT_LISTINGS, key, context, () =>
    listTree(context, mirrorPath, commit, paths),
  );
  const unreadable = async () => null;
  return paths.map((path): MirrorEntry => {
    const entry = entries.get(path);
    if (entry === undefined) return { path, kind: 'missing', read: unreadable };
    if (entry.mode === '120000') return { path, kind: 'symlink', read: unreadable };
    if (entry.mode !== '100644' && entry.mode !== '100755')
      return { path, kind: 'not_a_file', read: unreadable };
    if (Number(entry.size) > maxBytes) return { path, kind: 'too_large', read: unreadable };
    const read = () =>
      remembered(contents, KEPT_CONTENTS, [mirrorPath, entry.oid, maxBytes].join('\0'), context, () =>
        readBlob(context, mirrorPath, entry.oid, maxBytes),
      );
    return { path, kind: 'file', read };
  });
}

async function listTree(
  context: GitContext,
  mirrorPath: string,
  commit: string,
  paths: readonly string[],
): Promise<Listing> {
  const listing = await runGit(
    context,
    ['--literal-pathspecs', 'ls-tree', '-l', '-z', commit, '--', ...paths],
    {
      cwd: mirrorPath,
      action: 'reading the repository instructions',
      unlocked: true,
    },
  );
  const entries: Listing = new Map();
  for (const record of listing.stdout.split('\0')) {
    // "<mode> <type> <oid> <size>\t<path>"
    const match = /^(\d+) \w+ ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(record);
    if (match) entries.set(match[4]!, { mode: match[1]!, oid: match[2]!, size: match[3]! });
  }
  return entries;
}

async function readBlob(
  context: GitContext,
  mirrorPath: string,
  oid: string,
  maxBytes: number,
): Promise<Buffer | null> {
  const blob = await runGit(context, ['cat-file', 'blob', oid], {
    cwd: mirrorPath,
    action: 'reading the repository instructions',
    unlocked: true,
    maxStdoutBytes: maxBytes + 1,
  });
  // Valid UTF-8 survives decoding and encoding unchanged; anything else shows as U+FFFD.
  if (blob.truncated || blob.stdout.includes('\uFFFD')) return null;
  return Buffer.from(blob.stdout, 'utf8');
}

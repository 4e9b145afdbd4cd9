// Reads a few files straight from the mirror at a commit, without a worktree: the repository's
// instructions for the agent can then be read while the worktree is still being prepared. Only
// regular files are read; the caller applies the tools' rules (guards.ts) and leaves to a checkout
// what only a checkout can judge (a symbolic link, which may point anywhere).
import { type GitContext, runGit } from './git-command.ts';

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
  const listing = await runGit(
    context,
    ['--literal-pathspecs', 'ls-tree', '-l', '-z', commit, '--', ...paths],
    {
      cwd: mirrorPath,
      action: 'reading the repository instructions',
      unlocked: true,
    },
  );
  const entries = new Map<string, { mode: string; oid: string; size: string }>();
  for (const record of listing.stdout.split('\0')) {
    // "<mode> <type> <oid> <size>\t<path>"
    const match = /^(\d+) \w+ ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(record);
    if (match) entries.set(match[4]!, { mode: match[1]!, oid: match[2]!, size: match[3]! });
  }
  const unreadable = async () => null;
  return paths.map((path): MirrorEntry => {
    const entry = entries.get(path);
    if (entry === undefined) return { path, kind: 'missing', read: unreadable };
    if (entry.mode === '120000') return { path, kind: 'symlink', read: unreadable };
    if (entry.mode !== '100644' && entry.mode !== '100755')
      return { path, kind: 'not_a_file', read: unreadable };
    if (Number(entry.size) > maxBytes) return { path, kind: 'too_large', read: unreadable };
    const read = async () => {
      const blob = await runGit(context, ['cat-file', 'blob', entry.oid], {
        cwd: mirrorPath,
        action: 'reading the repository instructions',
        unlocked: true,
        maxStdoutBytes: maxBytes + 1,
      });
      // Valid UTF-8 survives decoding and encoding unchanged; anything else shows as U+FFFD.
      if (blob.truncated || blob.stdout.includes('\uFFFD')) return null;
      return Buffer.from(blob.stdout, 'utf8');
    };
    return { path, kind: 'file', read };
  });
}

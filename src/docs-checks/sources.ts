// DocsSource helpers: files read from a directory (a worktree, a fixture, the benchmark's
// generated repository), and one source laid over another (the branch's changed files over the
// base's).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocsSource } from './snapshot.ts';

/** A source over `files` (repository-relative) under `root`; unreadable files read as null. */
export function directorySource(root: string, files: readonly string[]): DocsSource {
  return {
    files,
    read: (path) => readFile(join(root, path), 'utf8').catch(() => null),
  };
}

/** Every file under `root`, repository-relative and sorted, without .git and node_modules. */
export async function listDirectory(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name)
      .slice(root.length + 1)
      .replaceAll('\\', '/');
    if (/(^|\/)(\.git|node_modules)\//.test(path)) continue;
    files.push(path);
  }
  return files.sort();
}

/** `base` with `changes` laid over it: a text replaces or adds a file, null deletes it. */
export function overlaySource(base: DocsSource, changes: ReadonlyMap<string, string | null>): DocsSource {
  const files = new Set(base.files);
  for (const [path, text] of changes) {
    if (text === null) files.delete(path);
    else files.add(path);
  }
  return {
    files: [...files],
    read: async (path) => (changes.has(path) ? (changes.get(path) ?? null) : base.read(path)),
  };
}

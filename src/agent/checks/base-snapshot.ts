// The docs checks' view of the job's base commit. Its pages are read when a check needs them,
// from the worktree, which holds the base's files where the job has not changed them; each file
// is matched against the base's blob id, and one the job changed is read from git instead. Snapshots are
// kept per repository and commit (their contents never change), so later jobs on the same base
// reuse the texts and the pages already parsed.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DocsFramework, DocsSnapshot, type DocsSource, isPage } from '../../docs-checks/index.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';
import { BaseMentions } from './base-mentions.ts';

/** Snapshots kept: a few repositories' latest bases (each holds the pages it has read). */
const KEPT = 4;

interface Kept {
  snapshot: Promise<DocsSnapshot>;
  /** The latest job's worktree on this base: where unchanged pages are read from. */
  workspace: JobWorkspace;
}
const kept = new Map<string, Kept>();

export function baseSnapshot(
  repository: string,
  workspace: JobWorkspace,
  framework: DocsFramework | undefined,
): Promise<DocsSnapshot> {
  const key = `${repository}\u0000${workspace.baseCommit}\u0000${framework ?? ''}`;
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, found);
    found.workspace = workspace;
    return found.snapshot;
  }
  const entry = { workspace } as Kept;
  entry.snapshot = buildBase(repository, entry, framework);
  kept.set(key, entry);
  entry.snapshot.catch(() => kept.delete(key));
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return entry.snapshot;
}

async function buildBase(
  repository: string,
  entry: Kept,
  framework: DocsFramework | undefined,
): Promise<DocsSnapshot> {
  const blobs = await entry.workspace.baseFiles();
  const pages = new Map([...blobs].filter(([path]) => isPage(path)));
  const mentions = new BaseMentions(repository, pages, () => entry.workspace);
  const reading = new Map<string, Promise<string | null>>();
  const source: DocsSource = {
    files: [...blobs.keys()],
    read: (path) => {
      // Asked twice at once (the tool call's prepareBase and the check), read once.
      let pending = reading.get(path);
      if (!pending) {
        pending = readBase(entry, path, blobs.get(path)).finally(() => reading.delete(path));
        reading.set(path, pending);
      }
      return pending;
    },
    // The pages that name a changed one, without reading all: from the words kept per blob, or a
    // git grep over the base's pages (base-mentions.ts).
    search: (text) => mentions.search(text),
  };
  return DocsSnapshot.build(source, framework ? { framework } : {});
}

/** A base file's text: from the latest worktree when it still holds the blob, else from git. */
async function readBase(entry: Kept, path: string, oid: string | undefined): Promise<string | null> {
  if (oid === undefined) return null;
  // Another job's worktree may have changed the file (or be gone): the blob id tells.
  const { workspace } = entry;
  const bytes = await readFile(join(workspace.path, path)).catch(() => null);
  if (bytes !== null && gitBlobId(bytes, oid.length) === oid) return bytes.toString('utf8');
  return workspace.blobText(oid).catch(() => null);
}

/** The id git gives a blob with these bytes (SHA-1, or SHA-256 in a repository using it). */
function gitBlobId(bytes: Buffer, idLength: number): string {
  const hash = createHash(idLength === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${bytes.length}\0`);
  hash.update(bytes);
  return hash.digest('hex');
}

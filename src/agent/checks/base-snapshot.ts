// The docs checks' view of the job's base commit. Its pages are read from the worktree, which
// holds the base's files where the job has not changed them yet; each file is matched against
// the base's blob id, and one the model already changed is read from git instead. Snapshots are
// kept per repository and commit (their contents never change), so later jobs on the same base
// reuse the texts and the pages already parsed.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DocsFramework, DocsSnapshot, type DocsSource } from '../../docs-checks/index.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';

/** Snapshots kept: a few repositories' latest bases (each holds its pages' texts). */
const KEPT = 4;
const kept = new Map<string, Promise<DocsSnapshot>>();

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
    return found;
  }
  const building = buildBase(workspace, framework);
  kept.set(key, building);
  building.catch(() => kept.delete(key));
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return building;
}

async function buildBase(
  workspace: JobWorkspace,
  framework: DocsFramework | undefined,
): Promise<DocsSnapshot> {
  const blobs = await workspace.baseFiles();
  const source: DocsSource = {
    files: [...blobs.keys()],
    read: async (path) => {
      const oid = blobs.get(path);
      if (oid === undefined) return null;
      const bytes = await readFile(join(workspace.path, path)).catch(() => null);
      if (bytes !== null && gitBlobId(bytes, oid.length) === oid) return bytes.toString('utf8');
      return workspace.blobText(oid).catch(() => null);
    },
  };
  return DocsSnapshot.build(source, framework ? { framework } : {});
}

/** The id git gives a blob with these bytes (SHA-1, or SHA-256 in a repository using it). */
function gitBlobId(bytes: Buffer, idLength: number): string {
  const hash = createHash(idLength === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${bytes.length}\0`);
  hash.update(bytes);
  return hash.digest('hex');
}

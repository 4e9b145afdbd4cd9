// The watched code repository of a code_change automation, as a read-only source: a bare
// repository per repository URL under <dataDir>/code-repos, separate from the docs mirrors (no
// worktrees, no job branches, never pushed to). It holds only the commits runs asked for: each is
// fetched by its id with its first parent (--depth=2) and, for a push, the commit before it, with
// their whole trees, so the diff, the changed files and the code tools (git ls-tree / cat-file /
// grep at the commit) need no network and no credential afterwards. Fetches run under the same
// mirror lock, safe environment and URL rules as the docs mirrors (src/agent/workspace).
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { WorkspaceFailure } from '../workspace/failures.ts';
import { type GitContext, runGit } from '../workspace/git-command.ts';
import { GitRunner } from '../workspace/git-runner.ts';
import { lockPathFor, mirrorPathFor } from '../workspace/mirror.ts';
import { withMirrorLock } from '../workspace/mirror-lock.ts';
import { checkRepositoryUrl } from '../workspace/repository-url.ts';
import { createScrubber, secretsOfAuthorization } from '../workspace/scrub.ts';

const OBJECT_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const NULL_ID = /^0+$/;

export interface CodeCommitRequest {
  /** http(s) URL of the watched repository, without credentials. */
  url: string;
  /** The value of git's Authorization header for it; null for a public repository. */
  authorization: string | null;
  /** The merged commit (or a push's new head). */
  commit: string;
  /** A push's previous head; null (or all zeros) to compare with the commit's first parent. */
  before?: string | null;
  signal?: AbortSignal;
}

export interface CodeCommit {
  mirrorPath: string;
  commit: string;
  /** What the change is compared with: `before`, else the first parent; null for a root commit. */
  base: string | null;
}

export interface CodeMirrorsOptions {
  /** e.g. <dataDir>/code-repos */
  cacheDir: string;
  runner?: GitRunner;
  lockTimeoutMs?: number;
}

/** Whether a string is a full git object id. */
export const isObjectId = (value: unknown): value is string =>
  typeof value === 'string' && OBJECT_ID.test(value);

export class CodeMirrors {
  readonly cacheDir: string;
  readonly runner: GitRunner;
  readonly #lockTimeoutMs: number;

  constructor(options: CodeMirrorsOptions) {
    this.cacheDir = resolve(options.cacheDir);
    this.runner = options.runner ?? new GitRunner();
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10 * 60_000;
  }

  /** The mirror's path for a repository URL (whether or not it exists yet). */
  pathFor(url: string): string {
    return mirrorPathFor(this.cacheDir, checkRepositoryUrl(url));
  }

  /** Makes sure the commit (and what it is compared with) is in the mirror; fetches it if not. */
  async ensure(request: CodeCommitRequest): Promise<CodeCommit> {
    const url = checkRepositoryUrl(request.url);
    if (!isObjectId(request.commit))
      throw new WorkspaceFailure('ref_not_found', 'The merged commit is not a full git object id.');
    const before =
      request.before && isObjectId(request.before) && !NULL_ID.test(request.before) ? request.before : null;
    const authorization = request.authorization;
    if (authorization !== null && /[\r\n\0]/.test(authorization))
      throw new WorkspaceFailure('auth', 'The code-host credential is not a valid HTTP header value.');
    const context: GitContext = {
      runner: this.runner,
      authorization,
      scrub: createScrubber(secretsOfAuthorization(authorization)),
      signal: request.signal,
    };
    const mirrorPath = mirrorPathFor(this.cacheDir, url);
    await mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
    return withMirrorLock(
      lockPathFor(mirrorPath),
      async () => {
        if (!(await exists(mirrorPath))) await this.#create(context, mirrorPath, url);
        const missing = [];
        // A commit fetched earlier as another one's parent sits at the shallow boundary: git knows
        // it but not its parent. Fetching it again with --depth=2 deepens it.
        const shallow = before === null ? await shallowCommits(mirrorPath) : new Set<string>();
        if (!(await hasCommit(context, mirrorPath, request.commit)) || shallow.has(request.commit))
          missing.push(request.commit);
        if (before !== null && !(await hasCommit(context, mirrorPath, before))) missing.push(before);
        // The first parent too, unless a push names what to compare with.
        if (missing.length === 0 && before === null) {
          const parent = await firstParent(context, mirrorPath, request.commit);
          if (parent !== null && !(await hasCommit(context, mirrorPath, parent)))
            missing.push(request.commit);
        }
        if (missing.length > 0) {
          try {
            await runGit(
              context,
              ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--depth=2', 'origin', ...missing],
              { cwd: mirrorPath, action: 'fetching the code repository' },
            );
          } catch (error) {
            if (error instanceof WorkspaceFailure && error.kind === 'git_failed')
              throw new WorkspaceFailure(
                'ref_not_found',
                `The commit ${request.commit.slice(0, 12)} could not be fetched from the code repository: ${error.message}`,
              );
            throw error;
          }
        }
        const base = before ?? (await firstParent(context, mirrorPath, request.commit));
        return { mirrorPath, commit: request.commit, base };
      },
      { timeoutMs: this.#lockTimeoutMs, signal: request.signal },
    );
  }

  async #create(context: GitContext, mirrorPath: string, url: string) {
    const building = `${mirrorPath}.new-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    try {
      await runGit(context, ['init', '--quiet', '--bare', building], {
        cwd: this.cacheDir,
        action: 'creating the code cache',
      });
      await runGit(context, ['config', 'remote.origin.url', url], {
        cwd: building,
        action: 'configuring the code cache',
      });
      await rename(building, mirrorPath);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      throw error;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(join(path, 'HEAD'));
    return true;
  } catch {
    return false;
  }
}

/** The commits at the mirror's shallow boundary (present, their parents not). */
async function shallowCommits(mirrorPath: string): Promise<Set<string>> {
  const text = await readFile(join(mirrorPath, 'shallow'), 'utf8').catch(() => '');
  return new Set(text.split('\n').filter((line) => isObjectId(line)));
}

async function hasCommit(context: GitContext, mirrorPath: string, id: string): Promise<boolean> {
  const result = await runGit(context, ['cat-file', '-e', `${id}^{commit}`], {
    cwd: mirrorPath,
    action: 'looking for the commit',
    okExitCodes: [1, 128],
  });
  return result.exitCode === 0;
}

async function firstParent(context: GitContext, mirrorPath: string, id: string): Promise<string | null> {
  const result = await runGit(context, ['rev-list', '--max-count=1', '--parents', '--no-walk', id], {
    cwd: mirrorPath,
    action: 'reading the commit',
    okExitCodes: [128],
  });
  if (result.exitCode !== 0) return null;
  const [, parent] = result.stdout.trim().split(' ');
  return parent && isObjectId(parent) ? parent : null;
}

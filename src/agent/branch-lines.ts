// Reads lines of a file on a job's branch, for the review_comment trigger's prompt: the branch is
// fetched into the repository's cached mirror (under the mirror lock, with the job's code-host
// credential, as a job's workspace does) and the file read from it, without a worktree. Capped:
// files over 1 MiB and text that is not UTF-8 are not read.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CodeHost, CodeHostOptions } from '../code-hosts/contract.ts';
import { createCodeHost } from '../code-hosts/factory.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { getProject } from '../modules/projects/index.ts';
import { codeHostOptionsOf } from './code-host-options.ts';
import { type CredentialsConfig, jobCodeHostCredentials } from './job-credentials.ts';
import type { GitContext } from './workspace/git-command.ts';
import { GitRunner } from './workspace/git-runner.ts';
import { lockPathFor, mirrorPathFor, refreshMirror } from './workspace/mirror.ts';
import { listMirrorFiles } from './workspace/mirror-file.ts';
import { withMirrorLock } from './workspace/mirror-lock.ts';
import { checkRefName, checkRepositoryUrl } from './workspace/repository-url.ts';
import { createScrubber, secretsOfAuthorization } from './workspace/scrub.ts';

const MAX_FILE_BYTES = 1024 * 1024;
/**
 * The whole read (credential, waiting for the mirror lock, fetch, read) gives up after this long,
 * well inside the automation worker's 60 s lease on the run: a run whose lease ran out while its
 * lines were read could be taken by another worker and followed up twice.
 */
const TIMEOUT_MS = 20_000;

export interface BranchLinesInput {
  projectId: string;
  jobId: string;
  repositoryUrl: string;
  branch: string;
  path: string;
  startLine: number;
  endLine: number;
}

export interface BranchLineReaderOptions {
  db: Database;
  config: CredentialsConfig & Pick<Config, 'dataDir'>;
  /** Builds the code-host adapter (its git header); tests point it at their fakes. */
  codeHost?: (options: CodeHostOptions) => CodeHost;
  runner?: GitRunner;
}

export function createBranchLineReader(options: BranchLineReaderOptions) {
  const cacheDir = resolve(join(options.config.dataDir, 'repos'));
  const makeCodeHost = options.codeHost ?? createCodeHost;
  const runner = options.runner ?? new GitRunner();
  return async (input: BranchLinesInput): Promise<string[]> => {
    const path = input.path.replace(/^\/+/, '');
    if (path === '' || path.split('/').some((part) => part === '..' || part === '.git')) {
      throw new Error(`"${input.path}" is not a path docwright reads`);
    }
    const url = checkRepositoryUrl(input.repositoryUrl);
    const branch = checkRefName(input.branch, 'branch');
    const project = await getProject(options.db, input.projectId);
    const credentials = await jobCodeHostCredentials(options.db, options.config, project, url);
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    const header = await makeCodeHost(codeHostOptionsOf(project, credentials)).gitAuthHeader(signal);
    const authorization = header.replace(/^Authorization:\s*/i, '');
    const context: GitContext = {
      runner,
      authorization,
      scrub: createScrubber(secretsOfAuthorization(authorization)),
      signal,
    };
    const mirrorPath = mirrorPathFor(cacheDir, url);
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    await withMirrorLock(
      lockPathFor(mirrorPath),
      () => refreshMirror(context, mirrorPath, url, { baseRef: branch, branch: null }),
      { timeoutMs: TIMEOUT_MS, signal },
    );
    const [entry] = await listMirrorFiles(
      context,
      mirrorPath,
      `refs/remotes/origin/${branch}`,
      [path],
      MAX_FILE_BYTES,
    );
    if (entry === undefined || entry.kind !== 'file') {
      throw new Error(`${path} is ${entry?.kind.replaceAll('_', ' ') ?? 'missing'} on the branch`);
    }
    const content = await entry.read();
    if (content === null) throw new Error(`${path} is not UTF-8 text`);
    return content
      .toString('utf8')
      .split('\n')
      .slice(input.startLine - 1, input.endLine);
  };
}

// The automation worker's reader of code changes (ReadCodeChange): fetches the merged commit of
// the watched repository into the code mirror with the credential rules of the docs repository,
// then reads its changed files and diff there. Also what the job runner uses to put the same
// commit in its own data directory's code mirror before offering the code tools.
//
// Credentials: the project's code-host credential is sent only when the watched repository is on
// the project's own code host (same kind, same origin as the docs repository) and the credential
// is bound to that destination (job-credentials.ts); otherwise git asks anonymously, which is
// enough for a public repository. The address policy applies before anything is sent.
import type { CodeHost, CodeHostOptions } from '../../code-hosts/contract.ts';
import { createCodeHost } from '../../code-hosts/factory.ts';
import type { Queryable } from '../../db/database.ts';
import type {
  CodeChangeDetails,
  CodeChangeRequest,
  ReadCodeChange,
} from '../../modules/automations/index.ts';
import { getProject, type Project, repositoryAddressProblem } from '../../modules/projects/index.ts';
import { codeHostOptionsOf } from '../code-host-options.ts';
import { type CredentialsConfig, jobCodeHostCredentials } from '../job-credentials.ts';
import { WorkspaceFailure } from '../workspace/failures.ts';
import { checkRepositoryUrl } from '../workspace/repository-url.ts';
import { summariseChange } from './change-summary.ts';
import type { CodeMirrors } from './code-mirror.ts';

const PUBLIC_HOSTS: Record<string, string> = { github: 'https://github.com', gitlab: 'https://gitlab.com' };

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Where git fetches the watched repository: the clone URL the webhook gave; else, on the
 * project's own code host, beside the docs repository; else the public host of that kind.
 */
export function codeRepositoryUrl(
  project: Project,
  source: { host: string; repository: string; cloneUrl: string | null },
): string {
  if (source.cloneUrl) return checkRepositoryUrl(source.cloneUrl);
  const origin =
    source.host === project.codeHost.kind
      ? originOf(project.repositoryUrl)
      : (PUBLIC_HOSTS[source.host] ?? null);
  if (origin === null)
    throw new WorkspaceFailure(
      'invalid_repository_url',
      `The webhook gave no clone URL for ${source.repository}, and its ${source.host} host is not the project's.`,
    );
  return checkRepositoryUrl(`${origin}/${source.repository}.git`);
}

/**
 * git's Authorization header value for the watched repository, or null (anonymous). Refuses a
 * URL the address policy refuses.
 */
export async function codeRepositoryAuthorization(
  db: Queryable,
  config: CredentialsConfig,
  project: Project,
  source: { host: string; repositoryUrl: string },
  makeCodeHost: (options: CodeHostOptions) => CodeHost,
  signal?: AbortSignal,
): Promise<string | null> {
  const refused = await repositoryAddressProblem(source.repositoryUrl, config.repositories);
  if (refused)
    throw new WorkspaceFailure('invalid_repository_url', `Refused before any request: ${refused}.`);
  const onProjectHost =
    source.host === project.codeHost.kind &&
    originOf(source.repositoryUrl) !== null &&
    originOf(source.repositoryUrl) === originOf(project.repositoryUrl);
  if (!onProjectHost) return null;
  let credentials: Awaited<ReturnType<typeof jobCodeHostCredentials>>;
  try {
    credentials = await jobCodeHostCredentials(db, config, project, source.repositoryUrl);
  } catch (error) {
    // No credential for it (none stored, or stored for another destination): try it as public.
    if ((error as { code?: unknown }).code === 'code_host_auth') return null;
    throw error;
  }
  const header = await makeCodeHost(codeHostOptionsOf(project, credentials)).gitAuthHeader(signal);
  return header.replace(/^Authorization:\s*/i, '');
}

export interface CodeChangeReaderOptions {
  db: Queryable;
  config: CredentialsConfig;
  mirrors: CodeMirrors;
  makeCodeHost?: (options: CodeHostOptions) => CodeHost;
}

export function createCodeChangeReader(options: CodeChangeReaderOptions): ReadCodeChange {
  const makeCodeHost = options.makeCodeHost ?? createCodeHost;
  return async (request: CodeChangeRequest): Promise<CodeChangeDetails> => {
    const project = await getProject(options.db, request.projectId);
    const repositoryUrl = codeRepositoryUrl(project, request);
    const authorization = await codeRepositoryAuthorization(
      options.db,
      options.config,
      project,
      { host: request.host, repositoryUrl },
      makeCodeHost,
      request.signal,
    );
    const commit = await options.mirrors.ensure({
      url: repositoryUrl,
      authorization,
      commit: request.commit,
      before: request.before,
      signal: request.signal,
    });
    const summary = await summariseChange(options.mirrors.runner, commit);
    return { changedFiles: summary.changedFiles, diff: summary.diff, repositoryUrl };
  };
}

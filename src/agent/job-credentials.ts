// The credentials one job runs with: its model (project key over server key) and its code host
// (project token, GitHub App, or the server's token for that kind of host). Read per job, so a
// changed secret applies to the next job without a restart; a project's code-host credential only
// for the code host it was stored for.

import type { CodeHostCredentials } from '../code-hosts/contract.ts';
import { CodeHostError } from '../code-hosts/contract.ts';
import { describeUrl } from '../code-hosts/locations.ts';
import type { Config } from '../config/config.ts';
import type { Queryable } from '../db/database.ts';
import type { ModelOptions, ResolvedModel } from '../models/providers.ts';
import { resolveModel } from '../models/resolve.ts';
import type { Project } from '../modules/projects/index.ts';
import {
  destinationOfProject,
  readBoundSecret,
  readProjectSecret,
  repositoryAddressProblem,
} from '../modules/projects/index.ts';
import { WorkspaceFailure } from './workspace/failures.ts';

export type CredentialsConfig = Pick<
  Config,
  'secretKey' | 'defaultModel' | 'modelCredentials' | 'codeHostTokens' | 'repositories'
>;

export async function jobModel(
  db: Queryable,
  config: CredentialsConfig,
  project: Project,
  jobModelName: string,
  options: ModelOptions,
): Promise<{ resolved: ResolvedModel; apiKey: string | null }> {
  const projectApiKey = await readProjectSecret(db, config.secretKey, project.id, 'modelApiKey');
  // The model the job was recorded with when it was created (chosenModel); the project's and the
  // server default only for a job recorded without one.
  const resolved = resolveModel(
    {
      projectModel: jobModelName || project.model,
      defaultModel: config.defaultModel,
      serverCredentials: config.modelCredentials,
      projectApiKey,
    },
    options,
  );
  const apiKey = projectApiKey ?? config.modelCredentials[resolved.spec.provider]?.apiKey ?? null;
  return { resolved, apiKey };
}

const TOKEN_VARIABLE = { github: 'GITHUB_TOKEN', gitlab: 'GITLAB_TOKEN', gitea: 'GITEA_TOKEN' } as const;

/**
 * The code-host credentials for a job on repositoryUrl (the job's, which may differ from the
 * project's if the project changed since). Refuses, before anything is sent: a repository, base
 * or API URL the address policy refuses now (DNS answers change after a URL is set), and a
 * project credential stored for another destination (credential-binding.ts).
 */
export async function jobCodeHostCredentials(
  db: Queryable,
  config: CredentialsConfig,
  project: Project,
  repositoryUrl: string,
): Promise<CodeHostCredentials> {
  for (const url of [repositoryUrl, project.codeHost.baseUrl, project.codeHost.apiUrl]) {
    if (url === null) continue;
    const refused = await repositoryAddressProblem(url, config.repositories);
    if (refused)
      throw new WorkspaceFailure('invalid_repository_url', `Refused before any request: ${refused}.`);
  }
  const kind = project.codeHost.kind;
  const destination = { ...destinationOfProject(project), repositoryUrl };
  const read = (name: 'codeHostToken' | 'githubAppPrivateKey') =>
    readBoundSecret(db, config.secretKey, project, name, destination);
  const suspended = (name: string, boundTo: string) =>
    new CodeHostError(
      'code_host_auth',
      `The project's ${name} secret was stored for ${boundTo} and is not sent to ${describeUrl(repositoryUrl)}${project.codeHost.baseUrl || project.codeHost.apiUrl ? ' or its code-host URLs' : ''}: set it again for this repository (docwright projects set-secret ${project.id} ${name}).`,
    );
  const token = await read('codeHostToken');
  if (token.status === 'usable') return { type: 'token', token: token.value };
  if (token.status === 'suspended') throw suspended('codeHostToken', token.boundTo);
  const { githubAppId, githubAppInstallationId } = project.settings;
  if (kind === 'github' && githubAppId && githubAppInstallationId) {
    const privateKey = await read('githubAppPrivateKey');
    if (privateKey.status === 'suspended') throw suspended('githubAppPrivateKey', privateKey.boundTo);
    if (privateKey.status === 'usable') {
      return {
        type: 'github-app',
        appId: githubAppId,
        installationId: githubAppInstallationId,
        privateKey: privateKey.value,
      };
    }
  }
  const serverToken = config.codeHostTokens[kind];
  if (serverToken !== null) return { type: 'token', token: serverToken };
  throw new CodeHostError(
    'code_host_auth',
    `No ${kind} token is configured: store the project's codeHostToken secret (docwright projects set-secret ${project.id} codeHostToken) or set ${TOKEN_VARIABLE[kind]} on the server.`,
  );
}

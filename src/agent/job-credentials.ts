// The credentials one job runs with: its model (project key over server key) and its code host
// (project token, GitHub App, or the server's token for that kind of host). Read per job, so a
// changed secret applies to the next job without a restart.

import type { CodeHostCredentials } from '../code-hosts/contract.ts';
import { CodeHostError } from '../code-hosts/contract.ts';
import type { Config } from '../config/config.ts';
import type { Queryable } from '../db/database.ts';
import type { ModelOptions, ResolvedModel } from '../models/providers.ts';
import { resolveModel } from '../models/resolve.ts';
import type { Project } from '../modules/projects/schemas.ts';
import { readProjectSecret } from '../modules/projects/secrets.ts';

export type CredentialsConfig = Pick<
  Config,
  'secretKey' | 'defaultModel' | 'modelCredentials' | 'codeHostTokens'
>;

export async function jobModel(
  db: Queryable,
  config: CredentialsConfig,
  project: Project,
  jobModelName: string,
  options: ModelOptions,
): Promise<{ resolved: ResolvedModel; apiKey: string | null }> {
  const projectApiKey = await readProjectSecret(db, config.secretKey, project.id, 'modelApiKey');
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

export async function jobCodeHostCredentials(
  db: Queryable,
  config: CredentialsConfig,
  project: Project,
): Promise<CodeHostCredentials> {
  const kind = project.codeHost.kind;
  const token = await readProjectSecret(db, config.secretKey, project.id, 'codeHostToken');
  if (token !== null) return { type: 'token', token };
  const { githubAppId, githubAppInstallationId } = project.settings;
  if (kind === 'github' && githubAppId && githubAppInstallationId) {
    const privateKey = await readProjectSecret(db, config.secretKey, project.id, 'githubAppPrivateKey');
    if (privateKey !== null) {
      return { type: 'github-app', appId: githubAppId, installationId: githubAppInstallationId, privateKey };
    }
  }
  const serverToken = config.codeHostTokens[kind];
  if (serverToken !== null) return { type: 'token', token: serverToken };
  throw new CodeHostError(
    'code_host_auth',
    `No ${kind} token is configured: store the project's codeHostToken secret (docwright projects set-secret ${project.id} codeHostToken) or set ${TOKEN_VARIABLE[kind]} on the server.`,
  );
}

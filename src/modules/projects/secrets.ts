// A project's stored secrets: written sealed (src/util/secret-box.ts), read back only by the code
// that uses them (the job runner), listed by name only.
import type { Queryable } from '../../db/database.ts';
import { openSecret, sealSecret } from '../../util/secret-box.ts';
import { projectErrors } from './errors.ts';
import { deleteSecretRow, selectSecretNames, selectSecretRow, upsertSecretRow } from './secret-queries.ts';
import { getProject } from './service.ts';

/** The secrets a project can hold, and what each is for. */
export const PROJECT_SECRET_NAMES = {
  codeHostToken: 'Token for the code host: pushes the branch and opens the pull request.',
  modelApiKey: "API key for the project's model provider (overrides the server's).",
  githubAppPrivateKey:
    'PEM private key of a GitHub App (with settings githubAppId and githubAppInstallationId).',
  webhookSecret: 'Secret that signs webhook deliveries (HMAC-SHA256).',
} as const;
export type ProjectSecretName = keyof typeof PROJECT_SECRET_NAMES;

const contextOf = (projectId: string, name: string) => `${projectId}/${name}`;

function checkName(name: string): asserts name is ProjectSecretName {
  if (!(name in PROJECT_SECRET_NAMES)) {
    throw projectErrors.invalid_project(
      `Unknown secret "${name}"; known secrets: ${Object.keys(PROJECT_SECRET_NAMES).join(', ')}.`,
      { details: [{ name: 'secret', message: 'unknown secret name' }] },
    );
  }
}

export async function setProjectSecret(
  db: Queryable,
  serverKey: Buffer,
  projectId: string,
  name: string,
  value: string,
): Promise<void> {
  checkName(name);
  await getProject(db, projectId);
  if (value.trim() === '') {
    throw projectErrors.invalid_project(`The value of secret ${name} is empty.`, {
      details: [{ name: 'secret', message: 'empty value' }],
    });
  }
  await upsertSecretRow(db, projectId, name, sealSecret(serverKey, contextOf(projectId, name), value.trim()));
}

export async function readProjectSecret(
  db: Queryable,
  serverKey: Buffer,
  projectId: string,
  name: ProjectSecretName,
): Promise<string | null> {
  const sealed = await selectSecretRow(db, projectId, name);
  return sealed === null ? null : openSecret(serverKey, contextOf(projectId, name), sealed);
}

export async function listProjectSecrets(
  db: Queryable,
  projectId: string,
): Promise<{ name: string; updatedAt: Date }[]> {
  await getProject(db, projectId);
  return selectSecretNames(db, projectId);
}

export async function deleteProjectSecret(db: Queryable, projectId: string, name: string): Promise<boolean> {
  checkName(name);
  return deleteSecretRow(db, projectId, name);
}

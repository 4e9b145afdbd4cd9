// A project's stored secrets: written sealed (src/util/secret-box.ts), read back only by the code
// that uses them (the job runner), listed by name only. Code-host credentials are bound to the
// code host they were stored for (credential-binding.ts).
import type { Queryable } from '../../db/database.ts';
import { openSecret, sealSecret } from '../../util/secret-box.ts';
import {
  bindingOf,
  type CredentialDestination,
  describeBinding,
  destinationOfProject,
  type HostBoundSecret,
  isHostBound,
} from './credential-binding.ts';
import { projectErrors } from './errors.ts';
import type { Project } from './schemas.ts';
import { deleteSecretRow, selectSecretNames, selectSecretRow, upsertSecretRow } from './secret-queries.ts';
import { getProject } from './service.ts';

/** The secrets a project can hold, and what each is for. */
export const PROJECT_SECRET_NAMES = {
  codeHostToken: 'Token for the code host: pushes the branch and opens the pull request.',
  modelApiKey: "API key for the project's model provider (overrides the server's).",
  githubAppPrivateKey:
    'PEM private key of a GitHub App (with settings githubAppId and githubAppInstallationId).',
  webhookSecret: 'Secret that signs webhook deliveries (HMAC-SHA256).',
  codeHostWebhookSecret:
    "Secret the code hosts' webhooks to docwright's automations are signed with (GitHub, Gitea) or carry (GitLab).",
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
  const project = await getProject(db, projectId);
  if (value.trim() === '') {
    throw projectErrors.invalid_project(`The value of secret ${name} is empty.`, {
      details: [{ name: 'secret', message: 'empty value' }],
    });
  }
  // A code-host credential is bound to the project's code host as it is now.
  const boundTo = isHostBound(name) ? bindingOf(destinationOfProject(project)) : null;
  await upsertSecretRow(
    db,
    projectId,
    name,
    sealSecret(serverKey, contextOf(projectId, name), value.trim()),
    boundTo,
  );
}

/**
 * A secret's value, whatever it is bound to. Code that sends a code-host credential anywhere
 * reads it with readBoundSecret instead, which checks the destination.
 */
export async function readProjectSecret(
  db: Queryable,
  serverKey: Buffer,
  projectId: string,
  name: ProjectSecretName,
): Promise<string | null> {
  const row = await selectSecretRow(db, projectId, name);
  return row === null ? null : openSecret(serverKey, contextOf(projectId, name), row.sealed);
}

export type BoundSecret =
  | { status: 'absent' }
  | { status: 'usable'; value: string }
  /** Stored for another destination: boundTo describes it. Never opened. */
  | { status: 'suspended'; boundTo: string };

/**
 * A code-host credential, only if it was stored for this destination. A secret stored before
 * bindings existed counts as bound to the project's current code host.
 */
export async function readBoundSecret(
  db: Queryable,
  serverKey: Buffer,
  project: Project,
  name: HostBoundSecret,
  destination: CredentialDestination,
): Promise<BoundSecret> {
  const row = await selectSecretRow(db, project.id, name);
  if (row === null) return { status: 'absent' };
  const boundTo = row.boundTo ?? bindingOf(destinationOfProject(project));
  if (boundTo !== bindingOf(destination)) return { status: 'suspended', boundTo: describeBinding(boundTo) };
  return { status: 'usable', value: openSecret(serverKey, contextOf(project.id, name), row.sealed) };
}

export interface SecretListing {
  name: string;
  updatedAt: Date;
  /** Set when the secret was stored for another code host than the project's: not used. */
  suspendedFor: string | null;
}

export async function listProjectSecrets(db: Queryable, projectId: string): Promise<SecretListing[]> {
  const project = await getProject(db, projectId);
  const current = bindingOf(destinationOfProject(project));
  return (await selectSecretNames(db, projectId)).map((s) => ({
    name: s.name,
    updatedAt: s.updatedAt,
    suspendedFor:
      isHostBound(s.name) && s.boundTo !== null && s.boundTo !== current ? describeBinding(s.boundTo) : null,
  }));
}

/** The project's code-host secrets that are suspended, for messages after an update. */
export async function suspendedSecrets(db: Queryable, projectId: string): Promise<SecretListing[]> {
  return (await listProjectSecrets(db, projectId)).filter((s) => s.suspendedFor !== null);
}

export async function deleteProjectSecret(db: Queryable, projectId: string, name: string): Promise<boolean> {
  checkName(name);
  return deleteSecretRow(db, projectId, name);
}

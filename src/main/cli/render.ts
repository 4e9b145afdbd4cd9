// Text for people, one function per result. Keys show their prefix; only a newly created key is
// shown whole, once, with a warning that it will not be shown again.
import type { CreatedKeyJson, KeyJson, ProjectJson } from '../commands/json-shapes.ts';
import { table } from './output.ts';

export function renderProject(verb: string, p: ProjectJson): string {
  const settings = Object.keys(p.settings).length > 0 ? JSON.stringify(p.settings) : '(defaults)';
  return [
    `${verb} project ${p.id} "${p.name}"`,
    `  repository:  ${p.repositoryUrl} (branch ${p.ref})`,
    `  code host:   ${p.codeHost.kind}${p.codeHost.baseUrl ? ` at ${p.codeHost.baseUrl}` : ''}${p.codeHost.apiUrl ? ` (API ${p.codeHost.apiUrl})` : ''}`,
    `  model:       ${p.model ?? "(none: the server's DOCWRIGHT_MODEL, if it has one)"}`,
    `  settings:    ${settings}`,
    ...(p.suspendedSecrets ?? []).map(
      (s) =>
        `  suspended:   ${s.name}, stored for ${s.storedFor}: jobs do not send it to this code host; set it again (docwright projects set-secret ${p.id} ${s.name})`,
    ),
  ].join('\n');
}

export function renderProjects(projects: ProjectJson[]): string {
  if (projects.length === 0) {
    return 'No projects yet. Create one with: docwright projects create --name NAME --repository URL';
  }
  return table(
    ['ID', 'NAME', 'REPOSITORY', 'REF', 'HOST', 'MODEL'],
    projects.map((p) => [p.id, p.name, p.repositoryUrl, p.ref, p.codeHost.kind, p.model ?? '-']),
  );
}

export function renderCreatedKey(k: CreatedKeyJson): string {
  return [
    `Created ${k.scope} key ${k.id} "${k.name}" for project ${k.projectId}, ${k.expiresAt ? `expires ${k.expiresAt}` : 'does not expire'}.`,
    '',
    `  ${k.key}`,
    '',
    'This key is shown only now and will not be shown again: store it now (e.g. in a secret manager).',
    `Later it is listed by its prefix ${k.prefix} (docwright keys list --project ${k.projectId}).`,
  ].join('\n');
}

export function keyStatus(k: KeyJson, now = Date.now()): string {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null && Date.parse(k.expiresAt) <= now) return 'expired';
  return 'active';
}

export function renderKeys(keys: KeyJson[]): string {
  if (keys.length === 0)
    return 'This project has no API keys. Create one with: docwright keys create --project ID';
  return table(
    ['ID', 'NAME', 'SCOPE', 'PREFIX', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'],
    keys.map((k) => [
      k.id,
      k.name,
      k.scope,
      `${k.prefix}…`,
      keyStatus(k),
      k.createdAt,
      k.expiresAt ?? 'never',
      k.lastUsedAt ?? 'never',
    ]),
  );
}

export function renderRevokedKey(k: KeyJson): string {
  return `Revoked key ${k.id} "${k.name}" (${k.prefix}…) at ${k.revokedAt}. Requests with it are refused from now on.`;
}

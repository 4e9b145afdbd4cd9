// Creating, reading and changing projects, with every field checked before it is stored.
import { Value } from 'typebox/value';
import type { Queryable } from '../../db/database.ts';
import type { ErrorDetail } from '../../errors/app-error.ts';
import { newId } from '../../util/random.ts';
import { bindingOf, destinationOfProject, HOST_BOUND_SECRETS } from './credential-binding.ts';
import { projectErrors } from './errors.ts';
import {
  countProjects,
  insertProject,
  type ProjectRecord,
  selectProject,
  selectProjects,
  updateProjectRow,
} from './queries.ts';
import { type RepositoryAccess, repositoryAddressProblem } from './repository-address.ts';
import {
  CODE_HOST_KINDS,
  type CodeHostKind,
  type NewProject,
  type Project,
  type ProjectChanges,
  ProjectSettingsSchema,
} from './schemas.ts';
import { bindUnboundSecrets } from './secret-queries.ts';

/** Public hosts recognised from the repository URL; anything else needs an explicit kind. */
const KNOWN_HOSTS: Record<string, CodeHostKind> = {
  'github.com': 'github',
  'gitlab.com': 'gitlab',
  'codeberg.org': 'gitea',
  'gitea.com': 'gitea',
};

export function detectCodeHost(repositoryUrl: string): CodeHostKind | null {
  try {
    return KNOWN_HOSTS[new URL(repositoryUrl).hostname.toLowerCase()] ?? null;
  } catch {
    return null;
  }
}

/**
 * Creates a project. access: whether repository and code-host URLs may use http and reach
 * special-purpose addresses (DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE).
 */
export async function createProject(
  db: Queryable,
  input: NewProject,
  access: RepositoryAccess,
): Promise<Project> {
  const record = validate({ id: newId('prj'), ...input });
  await checkAddresses(record, access);
  return insertProject(db, record);
}

export async function getProject(db: Queryable, id: string): Promise<Project> {
  const project = await selectProject(db, id);
  if (!project) throw projectErrors.project_not_found(`No project has the id "${id}".`);
  return project;
}

/** The project, or null when there is none with this id (for callers that must not answer 404). */
export function findProject(db: Queryable, id: string): Promise<Project | null> {
  return selectProject(db, id);
}

export function listProjects(db: Queryable): Promise<Project[]> {
  return selectProjects(db);
}

export function projectCount(db: Queryable): Promise<number> {
  return countProjects(db);
}

/**
 * Changes only the given fields; settings are merged key by key (null removes a key). A change of
 * the repository's host or of the code host suspends the stored code-host credentials
 * (credential-binding.ts); suspendedSecrets() names them.
 */
export async function updateProject(
  db: Queryable,
  id: string,
  changes: ProjectChanges,
  access: RepositoryAccess,
): Promise<Project> {
  const current = await getProject(db, id);
  const settings = { ...current.settings } as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes.settings ?? {})) {
    if (value === null) delete settings[key];
    else settings[key] = value;
  }
  const repositoryUrl = changes.repositoryUrl ?? current.repositoryUrl;
  const detected = changes.repositoryUrl ? detectCodeHost(repositoryUrl) : null;
  const changesHost =
    changes.repositoryUrl !== undefined &&
    originOf(changes.repositoryUrl) !== originOf(current.repositoryUrl);
  // A repository on another, unknown host keeps no code host it does not say: the old kind would
  // be a guess (create refuses the same way).
  const codeHostKind =
    changes.codeHostKind ?? (changesHost ? (detected ?? undefined) : (detected ?? current.codeHost.kind));
  const record = validate({
    id,
    name: changes.name ?? current.name,
    repositoryUrl,
    ref: changes.ref ?? current.ref,
    // A new repository re-detects the kind unless one is given.
    ...(codeHostKind !== undefined ? { codeHostKind } : {}),
    codeHostBaseUrl:
      changes.codeHostBaseUrl !== undefined ? changes.codeHostBaseUrl : current.codeHost.baseUrl,
    codeHostApiUrl: changes.codeHostApiUrl !== undefined ? changes.codeHostApiUrl : current.codeHost.apiUrl,
    model: changes.model !== undefined ? changes.model : current.model,
    settings,
  });
  // Only URLs that change are checked: an unchanged one was checked when it was set, and jobs
  // check them all again before they run.
  await checkAddresses(record, access, {
    repositoryUrl: current.repositoryUrl,
    codeHostBaseUrl: current.codeHost.baseUrl,
    codeHostApiUrl: current.codeHost.apiUrl,
  });
  const before = bindingOf(destinationOfProject(current));
  const after = bindingOf({
    kind: record.codeHostKind,
    repositoryUrl: record.repositoryUrl,
    baseUrl: record.codeHostBaseUrl,
    apiUrl: record.codeHostApiUrl,
  });
  // Secrets stored before bindings existed belong to the destination being left.
  if (before !== after) await bindUnboundSecrets(db, id, HOST_BOUND_SECRETS, before);
  const updated = await updateProjectRow(db, record);
  if (!updated) throw projectErrors.project_not_found(`No project has the id "${id}".`);
  return updated;
}

function validate(input: NewProject & { id: string }): ProjectRecord {
  const details: ErrorDetail[] = [];
  const problem = (name: string, message: string) => details.push({ location: 'body', name, message });

  const name = input.name?.trim() ?? '';
  if (name === '' || name.length > 200) problem('name', 'name must be 1 to 200 characters.');

  const repositoryUrl = input.repositoryUrl?.trim() ?? '';
  const urlProblem = checkHttpUrl(repositoryUrl, 'repository URL');
  if (urlProblem) problem('repositoryUrl', urlProblem);

  const ref = input.ref?.trim() || 'main';
  if (!isValidBranchName(ref)) problem('ref', `ref "${ref}" is not a valid git branch name.`);

  const codeHostKind = input.codeHostKind ?? detectCodeHost(repositoryUrl);
  if (codeHostKind === null) {
    problem(
      'codeHost',
      `The code host of ${safeUrlForMessage(repositoryUrl)} is not known: set it to one of ${CODE_HOST_KINDS.join(', ')} (CLI: --code-host).`,
    );
  } else if (!CODE_HOST_KINDS.includes(codeHostKind)) {
    problem('codeHost', `code host must be one of ${CODE_HOST_KINDS.join(', ')}; got "${codeHostKind}".`);
  }

  const codeHostBaseUrl = input.codeHostBaseUrl?.trim() || null;
  if (codeHostBaseUrl !== null) {
    const baseProblem = checkHttpUrl(codeHostBaseUrl, 'code host base URL');
    if (baseProblem) problem('codeHostBaseUrl', baseProblem);
  }

  const codeHostApiUrl = input.codeHostApiUrl?.trim() || null;
  if (codeHostApiUrl !== null) {
    const apiProblem = checkHttpUrl(codeHostApiUrl, 'code host API URL');
    if (apiProblem) problem('codeHostApiUrl', apiProblem);
  }

  const model = input.model?.trim() || null;
  if (model !== null && !/^[a-z][a-z0-9-]*:\S+$/.test(model)) {
    problem(
      'model',
      `model must be written provider:model (e.g. anthropic:claude-sonnet-4-5); got "${model}".`,
    );
  }

  const settings = input.settings ?? {};
  if (!Value.Check(ProjectSettingsSchema, settings)) {
    for (const e of Value.Errors(ProjectSettingsSchema, settings)) {
      if (e.keyword === 'boolean') continue; // reported again, better, as additionalProperties
      const field = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (${(e.params as { additionalProperties: string[] }).additionalProperties.join(', ')}; known: ${Object.keys(ProjectSettingsSchema.properties).join(', ')})`
          : '';
      problem(
        `settings${field ? `.${field}` : ''}`,
        `settings${field ? `.${field}` : ''} ${e.message}${extra}`,
      );
    }
  }

  if (details.length > 0) {
    throw projectErrors.invalid_project(details.map((d) => d.message).join(' '), { details });
  }
  return {
    id: input.id,
    name,
    repositoryUrl,
    ref,
    codeHostKind: codeHostKind!,
    codeHostBaseUrl,
    codeHostApiUrl,
    model,
    settings,
  };
}

/** The repository, base and API URLs under the address policy (they all receive the token). */
async function checkAddresses(
  record: ProjectRecord,
  access: RepositoryAccess,
  unchanged: Partial<Record<'repositoryUrl' | 'codeHostBaseUrl' | 'codeHostApiUrl', string | null>> = {},
): Promise<void> {
  const details: ErrorDetail[] = [];
  for (const [name, url] of [
    ['repositoryUrl', record.repositoryUrl],
    ['codeHostBaseUrl', record.codeHostBaseUrl],
    ['codeHostApiUrl', record.codeHostApiUrl],
  ] as const) {
    if (url === null || unchanged[name] === url) continue;
    const refused = await repositoryAddressProblem(url, access);
    if (refused) details.push({ location: 'body', name, message: `${name}: ${refused}.` });
  }
  if (details.length > 0) {
    throw projectErrors.invalid_project(details.map((d) => d.message).join(' '), { details });
  }
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return raw;
  }
}

function checkHttpUrl(raw: string, what: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${what} must be an http(s) URL; got "${raw}".`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${what} must be an http(s) URL.`;
  // Credentials in a URL end up in logs and job records; tokens are stored separately, encrypted.
  if (url.username || url.password) return `${what} must not contain a user name or password.`;
  return null;
}

/** The URL without anything that could be a credential, for messages. */
function safeUrlForMessage(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'the repository URL';
  }
}

/** The rules of git check-ref-format that matter for a branch name typed by a person. */
export function isValidBranchName(ref: string): boolean {
  if (ref.length === 0 || ref.length > 200) return false;
  if (
    ref.startsWith('-') ||
    ref.startsWith('/') ||
    ref.endsWith('/') ||
    ref.endsWith('.') ||
    ref.endsWith('.lock')
  ) {
    return false;
  }
  if (ref.includes('..') || ref.includes('//') || ref.includes('@{') || ref === '@') return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  return !/[\x00-\x20\x7f~^:?*[\\]/.test(ref) && !ref.split('/').some((part) => part.startsWith('.'));
}

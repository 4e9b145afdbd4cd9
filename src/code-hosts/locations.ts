// Where a repository lives on its host: the host's web address, the repository's path there, and
// the API root each host serves under that address. Pure functions, tested in
// test/code-hosts/locations.test.ts.
import type { CodeHostKind } from './contract.ts';
import { CodeHostError } from './errors.ts';

const API_SUFFIX: Record<CodeHostKind, string> = { github: '/api/v3', gitlab: '/api/v4', gitea: '/api/v1' };

export interface RepositoryLocation {
  /** The host's web address without a trailing slash, e.g. https://gitlab.example.com/gitlab. */
  webBase: string;
  /** The repository's path below webBase, decoded: [owner, name], or GitLab's [group, ..., name]. */
  segments: string[];
}

/** The repository URL as it may appear in a message: no credentials, query or fragment. */
export function describeUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'the repository URL';
  }
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}

/** The web address a configured base URL stands for, without the API path some people include. */
export function webBaseOf(kind: CodeHostKind, baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CodeHostError('pr_failed', `The code host base URL "${describeUrl(baseUrl)}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CodeHostError('pr_failed', `The code host base URL must be http(s); got ${url.protocol}.`);
  }
  let path = trimSlashes(url.pathname);
  if (path.endsWith(API_SUFFIX[kind])) path = path.slice(0, -API_SUFFIX[kind].length);
  return `${url.origin}${path}`;
}

export function locateRepository(
  kind: CodeHostKind,
  repositoryUrl: string,
  baseUrl: string | null | undefined,
): RepositoryLocation {
  let url: URL;
  try {
    url = new URL(repositoryUrl);
  } catch {
    throw new CodeHostError('pr_failed', `The repository URL "${describeUrl(repositoryUrl)}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CodeHostError('pr_failed', `The repository URL must be http(s); got ${url.protocol}.`);
  }
  const webBase = baseUrl ? webBaseOf(kind, baseUrl) : url.origin;
  let path = url.pathname;
  // A host installed under a path (https://example.com/gitlab/...): the repository path follows it.
  const base = new URL(webBase);
  const basePath = trimSlashes(base.pathname);
  if (base.origin === url.origin && basePath && (path === basePath || path.startsWith(`${basePath}/`))) {
    path = path.slice(basePath.length);
  }
  // GitLab web pages of a repository continue after "/-/" (tree, merge_requests...).
  if (kind === 'gitlab' && path.includes('/-/')) path = path.slice(0, path.indexOf('/-/'));
  path = trimSlashes(path).replace(/\.git$/, '');
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  const fits = kind === 'gitlab' ? segments.length >= 2 : segments.length === 2;
  if (!fits) {
    const shape = kind === 'gitlab' ? 'group/.../project' : 'owner/repository';
    throw new CodeHostError(
      'pr_failed',
      `The repository URL ${describeUrl(repositoryUrl)} does not name a repository as ${webBase}/${shape}.`,
    );
  }
  return { webBase, segments };
}

/** GitHub's REST API root for a web address. */
export function githubApiUrl(webBase: string): string {
  const url = new URL(webBase);
  const host = url.hostname.toLowerCase();
  if (host === 'github.com' || host === 'www.github.com' || host === 'api.github.com') {
    return 'https://api.github.com';
  }
  // GitHub Enterprise Cloud with data residency: the API is a sibling host.
  if (host.endsWith('.ghe.com') && !host.startsWith('api.')) return `${url.protocol}//api.${url.host}`;
  if (host.startsWith('api.')) return trimSlashes(webBase);
  // GitHub Enterprise Server.
  return `${trimSlashes(webBase)}/api/v3`;
}

/** For an explicit API root: the address under which a host serves it (gitbeaker and gitea-js add the suffix). */
export function rootBelowApi(kind: 'gitlab' | 'gitea', apiUrl: string): string {
  const trimmed = trimSlashes(apiUrl);
  if (!trimmed.endsWith(API_SUFFIX[kind])) {
    throw new CodeHostError(
      'pr_failed',
      `The ${kind} API URL must end in ${API_SUFFIX[kind]}; got ${describeUrl(apiUrl)}.`,
    );
  }
  return trimmed.slice(0, -API_SUFFIX[kind].length);
}

/** The value of an HTTP Basic Authorization header. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

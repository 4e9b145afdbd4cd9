// Builds, at test time, a small OpenAPI document out of GitHub's official description (the
// @octokit/openapi package) holding only the operations docwright calls, so Prism can check the
// GitHub fake against it. The full description is 13 MB and takes Prism 9-18 s to load; the subset
// loads in about a second.
//
// What it changes, and why:
// - Keeps only the chosen operations (with their path-level parameters) and the components they
//   reach through $ref, followed transitively; the $refs themselves stay as they are.
// - Adds 401, 403 and 404 answers (GitHub's own `requires_authentication`, `forbidden` and
//   `not_found` responses) to operations that do not declare them: GitHub answers a bad token with
//   401 and an unknown or hidden repository with 404 on every route, so the honest answers of the
//   fake must pass the check. 503 (`service_unavailable`) is added the same way, for tests of retries.
// - Optionally prefixes every path (GitHub Enterprise Server serves the API under /api/v3, and
//   Prism matches the request path against the document's paths, not its servers).
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OperationRef {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
}

/** The GitHub operations the adapter in src/code-hosts/github uses. */
export const GITHUB_OPERATIONS_USED: OperationRef[] = [
  { method: 'get', path: '/repos/{owner}/{repo}' },
  { method: 'get', path: '/repos/{owner}/{repo}/pulls' },
  { method: 'post', path: '/repos/{owner}/{repo}/pulls' },
  { method: 'patch', path: '/repos/{owner}/{repo}/pulls/{pull_number}' },
  { method: 'post', path: '/app/installations/{installation_id}/access_tokens' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/check-runs' },
  { method: 'get', path: '/repos/{owner}/{repo}/commits/{ref}/status' },
];

export type GitHubDescription = 'api.github.com' | 'ghes-3.19';

export interface SubsetOptions {
  /** Which of the package's descriptions to start from. Defaults to api.github.com. */
  description?: GitHubDescription;
  operations?: OperationRef[];
  /** Prepended to every path, e.g. "/api/v3" for GitHub Enterprise Server. */
  pathPrefix?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ADDED_RESPONSES: Record<string, string> = {
  '401': 'requires_authentication',
  '403': 'forbidden',
  '404': 'not_found',
  '503': 'service_unavailable',
};

function loadDescription(name: GitHubDescription): JsonObject {
  const require = createRequire(import.meta.url);
  const file = require.resolve(`@octokit/openapi/generated/${name}.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
}

/** Returns the subset as an object (exported for the test that checks the subset itself). */
export function buildGitHubSubset(options: SubsetOptions = {}): JsonObject {
  const full = loadDescription(options.description ?? 'api.github.com');
  const fullPaths = full.paths as Record<string, JsonObject>;
  const fullComponents = full.components as Record<string, Record<string, Json>>;
  const prefix = options.pathPrefix ?? '';

  const paths: Record<string, JsonObject> = {};
  for (const { method, path } of options.operations ?? GITHUB_OPERATIONS_USED) {
    const item = fullPaths[path];
    const operation = item?.[method] as JsonObject | undefined;
    if (!item || !operation) throw new Error(`GitHub's description has no ${method.toUpperCase()} ${path}`);
    const copy = structuredClone(operation);
    const responses = copy.responses as Record<string, Json>;
    for (const [status, component] of Object.entries(ADDED_RESPONSES)) {
      if (!(status in responses) && fullComponents.responses?.[component]) {
        responses[status] = { $ref: `#/components/responses/${component}` };
      }
    }
    paths[prefix + path] ??= {};
    const target = paths[prefix + path]!;
    if (item.parameters) target.parameters = structuredClone(item.parameters);
    target[method] = copy;
  }

  // Follow every $ref from the kept operations to the components they need, transitively.
  const components: Record<string, Record<string, Json>> = {};
  const pending: Json[] = [paths];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const match = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
      if (!match) throw new Error(`Unexpected $ref ${ref}`);
      const [, kind, name] = match as unknown as [string, string, string];
      if (!components[kind]?.[name]) {
        const found = fullComponents[kind]?.[name];
        if (found === undefined) throw new Error(`GitHub's description lacks ${ref}`);
        components[kind] ??= {};
        components[kind][name] = found;
        pending.push(found);
      }
    }
    for (const value of Object.values(node)) pending.push(value);
  }

  return {
    openapi: full.openapi as string,
    info: {
      ...(full.info as JsonObject),
      title: `${(full.info as JsonObject).title} (subset for docwright tests)`,
    },
    servers: [{ url: 'http://127.0.0.1' }],
    paths,
    components,
  };
}

/** Writes the subset to a fresh temporary file and returns its path. */
export async function writeGitHubSubset(options: SubsetOptions = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'docwright-github-openapi-'));
  const file = join(dir, `${options.description ?? 'api.github.com'}-subset.json`);
  await writeFile(file, JSON.stringify(buildGitHubSubset(options)));
  return file;
}

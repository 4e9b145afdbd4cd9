// The subset of GitHub's OpenAPI description that Prism checks the GitHub fake against must itself
// be a valid description, hold every operation the adapter calls, and declare the honest error
// answers (401, 404) on each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildGitHubSubset, GITHUB_OPERATIONS_USED } from '../stand-ins/github-openapi-subset.ts';

for (const [description, pathPrefix] of [
  ['api.github.com', ''],
  ['ghes-3.19', '/api/v3'],
] as const) {
  test(`the ${description} subset is a valid OpenAPI description with every operation used`, async () => {
    const subset = buildGitHubSubset({ description, pathPrefix });
    const result = await new Validator().validate(structuredClone(subset));
    assert.equal(result.valid, true, JSON.stringify(result.errors ?? null).slice(0, 1000));

    const paths = subset.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    assert.equal(
      Object.values(paths).reduce(
        (n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length,
        0,
      ),
      GITHUB_OPERATIONS_USED.length,
      'nothing but the operations used',
    );
    for (const { method, path } of GITHUB_OPERATIONS_USED) {
      const operation = paths[pathPrefix + path]?.[method];
      assert.ok(operation, `${method} ${path}`);
      for (const status of ['401', '404'])
        assert.ok(status in operation.responses, `${method} ${path} declares ${status}`);
    }
    // Every $ref points at a component the subset carries.
    const text = JSON.stringify(subset);
    const components = subset.components as Record<string, Record<string, unknown>>;
    for (const [, kind, name] of text.matchAll(/"\$ref":"#\/components\/([^/"]+)\/([^"]+)"/g)) {
      assert.ok(components[kind!]?.[name!], `#/components/${kind}/${name}`);
    }
    assert.ok(text.length < 1_000_000, 'small enough to load quickly');
  });
}

test('asking for an operation GitHub does not describe fails loudly', () => {
  assert.throws(
    () => buildGitHubSubset({ operations: [{ method: 'get', path: '/repos/{owner}/{repo}/nonsense' }] }),
    /has no GET/,
  );
});

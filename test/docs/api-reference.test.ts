// docs/api.md is generated from the OpenAPI document the server serves; this fails when a route or
// schema changed and the page was not regenerated (node scripts/generate-api-docs.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  API_DOC_PATH,
  fieldRows,
  renderApiReference,
  servedOpenApiDocument,
  typeOf,
} from '../../scripts/generate-api-docs.ts';

test('docs/api.md is what the served /openapi.json renders to', async () => {
  const document = await servedOpenApiDocument();
  const expected = renderApiReference(document);
  const actual = readFileSync(API_DOC_PATH, 'utf8');
  assert.ok(
    actual === expected,
    'docs/api.md is stale: run "node scripts/generate-api-docs.ts" and commit docs/api.md',
  );
  // Every operation of the document has its section.
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) {
      assert.ok(actual.includes(`### ${method.toUpperCase()} \`${path}\``), `${method} ${path}`);
    }
  }
});

test('schemas render as types and flattened field rows', () => {
  assert.equal(
    typeOf({ type: 'integer', minimum: 1, maximum: 250, default: 50 }),
    'integer (1–250, default 50)',
  );
  assert.equal(
    typeOf({ anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] }),
    'string (uri) or null',
  );
  assert.equal(
    typeOf({
      anyOf: [
        { type: 'string', enum: ['a'] },
        { type: 'string', enum: ['b'] },
      ],
    }),
    '`"a"` \\| `"b"`',
  );
  assert.equal(typeOf({ $ref: '#/components/schemas/Job' }), '[Job](#schema-job)');
  assert.deepEqual(
    fieldRows({
      type: 'object',
      required: ['views'],
      properties: {
        views: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path'],
            properties: { path: { type: 'string', description: 'a|b' } },
          },
        },
      },
    }),
    ['| `views` | array of object | yes |  |', '| `views[].path` | string | yes | a\\|b |'],
  );
});

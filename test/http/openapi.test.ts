// The OpenAPI document is generated from the route schemas: it must be valid OpenAPI 3.1, resolve
// every $ref, and describe the contract's operations with bearer auth.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import packageJson from '../../package.json' with { type: 'json' };
import type { App } from '../../src/http/context.ts';
import { createTestApp } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('OpenAPI document', ({ db, backend }) => {
  let app: App;
  before(async () => {
    app = await createTestApp(db());
  });
  after(() => app.close());

  test('/openapi.json is valid OpenAPI 3.1 with resolvable references', {
    skip: backend === 'postgres',
  }, async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.deepEqual(result.errors ?? [], [], JSON.stringify(result.errors, null, 2));
    assert.equal(result.valid, true);
    const resolved = validator.resolveRefs() as { paths: Record<string, unknown> };
    assert.ok(!JSON.stringify(resolved.paths).includes('"$ref"'), 'every $ref resolves');
  });

  test('the contract operations are described with bearer auth and their success codes', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const create = doc.paths['/v2/agent/{projectId}/job'].post;
    assert.deepEqual(create.security, [{ bearerAuth: [] }]);
    assert.ok(create.responses['201']);
    assert.ok(create.requestBody.content['application/json'].schema);
    const get = doc.paths['/v2/agent/{projectId}/job/{id}'].get;
    assert.ok(get.responses['200']);
    // The hosted original's description declares the follow-up's success as 200 with the job;
    // a client generated from it treats 202 as undeclared.
    const followUp = doc.paths['/v2/agent/{projectId}/job/{id}/message'].post;
    assert.deepEqual(
      Object.keys(followUp.responses).filter((status) => status.startsWith('2')),
      ['200'],
    );
    assert.equal(
      followUp.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/Job',
    );
    const views = doc.paths['/v1/analytics/{projectId}/views']?.get;
    assert.ok(views, 'the views export is documented');
    const names = views.parameters.map((p: { name: string }) => p.name).sort();
    for (const name of ['dateFrom', 'dateTo', 'limit', 'offset', 'projectId'])
      assert.ok(names.includes(name), name);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: 'A docwright API key (dw_...).',
    });
    // The browser script's endpoint needs no key, by design (it checks origins instead).
    const PUBLIC = new Set(['post /v1/analytics/{projectId}/collect']);
    for (const path of Object.keys(doc.paths).filter((p) => /^\/v[12]\//.test(p))) {
      for (const [method, op] of Object.entries(doc.paths[path] as Record<string, { security?: unknown }>)) {
        // Automations: a trigger URL takes its own secret; the code hosts' webhooks are signed.
        const expected =
          PUBLIC.has(`${method} ${path}`) || /\/hooks\/[a-z]+$/.test(path)
            ? []
            : path.endsWith('/trigger')
              ? [{ triggerSecret: [] }]
              : [{ bearerAuth: [] }];
        assert.deepEqual(op.security, expected, `${method} ${path} declares its auth`);
      }
    }
  });

  test('the document and the docs page name the package and its version', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.info.title, `${packageJson.name} API`);
    assert.equal(doc.info.version, packageJson.version);
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      new RegExp(`<title>${packageJson.name} API ${packageJson.version.replaceAll('.', '\\.')}</title>`),
    );
  });
});

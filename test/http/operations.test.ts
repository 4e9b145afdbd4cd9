import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { createTestApp } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('operations routes', ({ db }) => {
  let app: App;
  before(async () => {
    app = await createTestApp(db());
  });
  after(() => app.close());

  test('/healthz answers ok', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('/readyz checks the database', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready' });
  });

  test('an unknown route answers the JSON error body with a request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/v3/nothing?x=1' });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.code, 'route_not_found');
    assert.equal(body.error, 'No route for GET at this path; /openapi.json lists the routes.');
    assert.match(body.requestId, /^req_[0-9a-f]{32}$/);
    assert.equal(res.headers['x-request-id'], body.requestId);
  });

  test('/docs serves the API docs page', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /swagger/i);
  });
});

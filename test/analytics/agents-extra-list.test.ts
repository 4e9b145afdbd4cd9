// An agent known only from an extra robots.json list is classified as AI on ingestion and shows
// its operator and category in the /agents export: both read the same list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const EXTRA = fileURLToPath(new URL('./fixtures/robots-extra.json', import.meta.url));

await forEachBackend('agents from an extra list', ({ db }) => {
  let app: App;
  before(async () => {
    app = await buildApp({
      db: db(),
      logger: createLogger('silent'),
      config: { jobRateLimitPerHour: 100, defaultModel: null, publicUrl: 'http://127.0.0.1:3000' },
      classification: createClassificationContext({ extraLists: [EXTRA], webBotAuth: false }),
    });
  });
  after(() => app.close());

  test('ingested, counted as AI, described in /agents by the extra list', async () => {
    const { project, adminKey } = await seedProject(db());
    const ingest = await app.inject({
      method: 'POST',
      url: `/v1/analytics/${project.id}/events`,
      headers: { ...bearer(adminKey), 'content-type': 'application/json' },
      payload: [{ path: '/guide', userAgent: 'Mozilla/5.0 (compatible; ExampleAssistant-User/1.0)' }],
    });
    assert.equal(ingest.statusCode, 202, ingest.body);
    assert.equal(ingest.json().accepted, 1);
    const agents = await app.inject({ url: `/v1/analytics/${project.id}/agents`, headers: bearer(adminKey) });
    assert.equal(agents.statusCode, 200);
    const row = agents.json().agents.find((a: { agent: string }) => a.agent === 'ExampleAssistant-User');
    assert.ok(row, agents.body);
    assert.equal(row.total, 1);
    assert.equal(row.category, 'assistant');
    assert.match(row.operator ?? '', /Example AI/);
  });
});

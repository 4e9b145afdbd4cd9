// The analytics page names the agent list in use (size, synced version, source, date) and shows
// the unknown-agents table, from the same counts as GET .../agents/unrecognized.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { createSetupToken } from '../../src/modules/accounts/users.ts';
import { AgentListRefresher } from '../../src/modules/analytics/classification/agent-list-refresh.ts';
import { syncAgentList } from '../../src/modules/analytics/classification/agent-sync.ts';
import { createLogger } from '../../src/util/logger.ts';
import { testContext } from '../analytics/fixtures/context.ts';
import { postRecords } from '../analytics/ingest-helpers.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { InjectBrowser, PUBLIC_URL } from './helpers.ts';

const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

await forEachBackend('analytics page: agent list and unrecognized agents', ({ db }) => {
  let app: App;
  const context = testContext();
  before(async () => {
    app = await buildApp({
      db: db(),
      logger: createLogger('silent'),
      config: { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test', publicUrl: PUBLIC_URL },
      dashboard: { secretKey: randomBytes(32) },
      classification: context,
    });
  });
  after(() => app.close());

  test('shows the synced version and the unrecognized agents table', async () => {
    const seeded = await seedProject(db());
    const owner = new InjectBrowser(app);
    await owner.get('/app/setup');
    const code = await createSetupToken(db());
    const done = await owner.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    assert.equal(done.status, 303);

    const before = await owner.get(`/app/projects/${seeded.project.id}/analytics`);
    assert.equal(before.status, 200, before.body.slice(0, 300));
    assert.match(before.body, /curated list only, no synced version/);
    assert.match(before.body, /Unrecognized automated agents/);

    await syncAgentList(db(), {
      text: JSON.stringify({ PageTestBot: { operator: 'Example', function: 'AI Assistants' } }),
      source: 'https://lists.example/robots.json',
      maxDropShare: 1,
    });
    await new AgentListRefresher(db(), context, { intervalMs: 1000 }).refreshNow();
    const posted = await postRecords(app, seeded.project.id, seeded.ingestKey, [
      { path: '/a', userAgent: 'Mozilla/5.0 (compatible; OddFetcher/0.9; +https://odd.example)' },
    ]);
    assert.equal(posted.statusCode, 202, posted.body);

    const page = await owner.get(`/app/projects/${seeded.project.id}/analytics`);
    assert.match(page.body, /synced version \d+ from <code>https:\/\/lists\.example\/robots\.json<\/code>/);
    assert.match(
      page.body,
      /<table id="unrecognized-agents">[\s\S]*<td>OddFetcher<\/td><td>bot<\/td><td>isbot<\/td>/,
    );
  });
});

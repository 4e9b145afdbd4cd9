// The unknown-agents report: which user agents count as unrecognized (named by no list entry,
// automated-looking), under which product token, and the counts through the real ingest route
// on both engines, exported by GET /v1/analytics/{projectId}/agents/unrecognized.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { renderUnrecognized } from '../../src/main/cli/agents-command.ts';
import { agentsUnrecognized } from '../../src/main/commands/agents-sync.ts';
import {
  productToken,
  unrecognizedAgent,
} from '../../src/modules/analytics/classification/unrecognized-agent.ts';
import { bearer, createTestApp, seedProject, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { testContext } from './fixtures/context.ts';
import { postRecords } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';

describe('what counts as an unrecognized agent', () => {
  const context = testContext();
  const verdict = (userAgent: string) => context.userAgents.classify(userAgent).unrecognized;

  test('automated-looking strings the list does not name, by product token and reason', () => {
    const cases: [string, string, string][] = [
      ['Mozilla/5.0 (compatible; NovelAgent/2.0; +https://novel.example/bot)', 'NovelAgent', 'isbot'],
      ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot', 'isbot'],
      ['python-requests/2.32.3', 'python-requests', 'isbot'],
      [
        'Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36 ZetaLLM-Reader/0.3',
        'ZetaLLM-Reader',
        'automated_words',
      ],
      ['acme-docs-sync/1.4 (linux)', 'acme-docs-sync', 'no_browser_engine'],
    ];
    for (const [userAgent, product, reason] of cases) {
      const found = verdict(userAgent);
      assert.deepEqual(found && [found.product, found.reason], [product, reason], userAgent);
    }
  });

  test('browsers, listed AI agents and no user agent are not counted', () => {
    for (const userAgent of [CHROME, 'GPTBot/1.3', 'Cursor/1.7.2 (darwin)', '', '-'])
      assert.equal(verdict(userAgent), null, userAgent);
  });

  test('product tokens drop versions and look inside (compatible; ...)', () => {
    assert.equal(productToken('Mozilla/5.0 (compatible; Foo/1.0)'), 'Foo');
    assert.equal(productToken('Thing/3 (x)'), 'Thing');
    assert.equal(unrecognizedAgent('x'.repeat(600), false)?.example.length, 256);
  });
});

await forEachBackend('unknown-agents report', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  before(async () => {
    app = await createTestApp(db());
    seeded = await seedProject(db());
  });
  after(() => app.close());

  const report = async (query = '', key = seeded.readKey) => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${seeded.project.id}/agents/unrecognized${query}`,
      headers: bearer(key),
    });
    return res;
  };

  test('counts views per product and class, leaves out browsers and listed agents, and pages', async () => {
    const records = [
      ...Array.from({ length: 3 }, () => ({
        path: '/a',
        userAgent: 'Mozilla/5.0 (compatible; NovelAgent/2.0)',
      })),
      { path: '/b', userAgent: 'Mozilla/5.0 (compatible; NovelAgent/2.1; +https://novel.example)' },
      { path: '/a', userAgent: 'acme-docs-sync/1.4 (linux)' },
      { path: '/a', userAgent: CHROME },
      { path: '/a', userAgent: 'GPTBot/1.3' },
      // A Markdown fetch makes an unnamed client AI: not a default-rule view, not counted.
      { path: '/a.md', userAgent: 'acme-docs-sync/1.4 (linux)' },
      // Dropped records are not views.
      { path: '/a', userAgent: 'Mozilla/5.0 (compatible; NovelAgent/2.0)', status: 404 },
      // The general path (a non-string field type) counts the same way.
      {
        path: '/c',
        userAgent: 'Mozilla/5.0 (compatible; NovelAgent/2.0)',
        timestamp: new Date().toISOString().replace('Z', '+00:00'),
      },
    ];
    const posted = await postRecords(app, seeded.project.id, seeded.ingestKey, records);
    assert.equal(posted.statusCode, 202, posted.body);

    const res = await report();
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      agents: {
        product: string;
        class: string;
        reason: string;
        views: number;
        example: string;
        firstSeen: string;
      }[];
      hasMore: boolean;
    };
    assert.deepEqual(
      body.agents.map((a) => [a.product, a.class, a.reason, a.views]),
      [
        ['NovelAgent', 'bot', 'isbot', 5],
        ['acme-docs-sync', 'human', 'no_browser_engine', 1],
      ],
    );
    assert.match(body.agents[0]!.example, /NovelAgent\/2\./);
    assert.match(body.agents[0]!.firstSeen, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(body.hasMore, false);

    const first = (await report('?limit=1')).json() as { agents: unknown[]; hasMore: boolean };
    assert.deepEqual([first.agents.length, first.hasMore], [1, true]);
  });

  test('docwright agents unrecognized: the same rows as a table; an unknown project is refused', async () => {
    const report = await agentsUnrecognized.run(
      db(),
      { projectId: seeded.project.id, limit: 10 },
      { secretKey: Buffer.alloc(32), repositories: TEST_REPOSITORIES },
    );
    assert.deepEqual(
      report.agents.map((a) => [a.product, a.views]),
      [
        ['NovelAgent', 5],
        ['acme-docs-sync', 1],
      ],
    );
    assert.match(
      renderUnrecognized(report),
      /^PRODUCT\s+COUNTED AS\s+WHY\s+VIEWS[\s\S]*NovelAgent\s+bot\s+isbot\s+5/,
    );
    await assert.rejects(
      agentsUnrecognized.run(
        db(),
        { projectId: 'prj_missing', limit: 10 },
        { secretKey: Buffer.alloc(32), repositories: TEST_REPOSITORIES },
      ),
      /not found|No project/i,
    );
  });

  test('needs a read or admin key of the project; bad paging is a 400', async () => {
    assert.equal((await report('', seeded.ingestKey)).statusCode, 403);
    const other = await seedProject(db());
    assert.equal((await report('', other.readKey)).statusCode, 403);
    const bad = await report('?limit=0');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_parameter');
  });
});

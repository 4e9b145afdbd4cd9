// The synced agent list: parsing both formats, curated entries winning, refusals that change
// nothing, versions stored on both engines, and a running server that classifies a newly synced
// agent as AI within its refresh interval, without a restart (the per-user-agent caches of the
// ingest fast path included), also when the sync is the server's own scheduled one.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { loadAgentListDocument } from '../../src/modules/analytics/classification/agent-list.ts';
import { selectLatestAgentListVersion } from '../../src/modules/analytics/classification/agent-list-queries.ts';
import { AgentListRefresher } from '../../src/modules/analytics/classification/agent-list-refresh.ts';
import { readAgentListSource } from '../../src/modules/analytics/classification/agent-list-source.ts';
import { startAgentListUpdates } from '../../src/modules/analytics/classification/agent-list-updates.ts';
import {
  AgentSyncRefused,
  checkDrop,
  prepareSync,
  syncAgentList,
} from '../../src/modules/analytics/classification/agent-sync.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { testContext } from './fixtures/context.ts';
import { postRecords, until } from './ingest-helpers.ts';

const curated = loadAgentListDocument();
const robots = (tokens: Record<string, string>) =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(tokens).map(([token, fn]) => [
        token,
        { operator: `[Op ${token}](https://example.com/${token})`, function: fn, respect: 'Yes' },
      ]),
    ),
  );

describe('preparing a sync', () => {
  test('robots.json: new tokens kept, curated names, products and notAi decisions left to the curated list', () => {
    const prepared = prepareSync(
      robots({
        'FreshBot/1.0': 'AI Data Scrapers',
        GPTBot: 'AI Search Crawlers',
        Cursor: 'AI Coding Agents',
        Applebot: 'AI Search Crawlers',
        Operator: 'AI Agents',
        Spider: 'AI Data Scrapers',
      }),
      'robots.json',
      curated,
    );
    assert.equal(prepared.format, 'robots_json');
    assert.deepEqual(
      prepared.entries.map((e) => [e.name, e.tokens, e.category, e.operator]),
      [['FreshBot', ['FreshBot'], 'training', 'Op FreshBot/1.0']],
    );
    const skipped = prepared.skipped.map((s) => s.token).sort();
    assert.deepEqual(skipped, ['Applebot', 'Cursor', 'GPTBot', 'Operator', 'Spider']);
  });

  test("docwright's own format: entries validated, tokens the curated list has removed", () => {
    const prepared = prepareSync(
      JSON.stringify({
        agents: [
          {
            name: 'OurAgent',
            tokens: ['OurAgent', 'ClaudeBot'],
            operator: 'Us',
            category: 'assistant',
            docs: 'https://example.com',
            sources: ['https://example.com'],
          },
        ],
      }),
      'ours.json',
      curated,
    );
    assert.equal(prepared.format, 'docwright');
    assert.deepEqual(prepared.entries[0]?.tokens, ['OurAgent']);
  });

  test('a list that does not parse, or is not a list, is refused', () => {
    assert.throws(() => prepareSync('{"x": ', 'a.json', curated), AgentSyncRefused);
    assert.throws(() => prepareSync('[1, 2]', 'a.json', curated), /must be a JSON object/);
    assert.throws(() => prepareSync('{"agents": [{"name": "X"}]}', 'a.json', curated), /invalid/);
    assert.throws(() => prepareSync('{}', 'a.json', curated), /holds no agents/);
  });

  test('dropping more than the allowed share is refused; up to it is allowed', () => {
    const entry = (name: string) => ({
      name,
      tokens: [name],
      operator: 'x',
      category: 'training' as const,
      docs: 'https://x',
      sources: ['https://x'],
    });
    const previous = { entries: ['A', 'B', 'C', 'D', 'E'].map(entry) };
    assert.doesNotThrow(() => checkDrop(previous, ['A', 'B', 'C', 'D'].map(entry), 0.2, 's'));
    assert.throws(
      () => checkDrop(previous, ['A', 'B', 'C'].map(entry), 0.2, 's'),
      /would drop 2 of the 5 synced entries \(40%\), more than the 20% allowed/,
    );
    assert.doesNotThrow(() => checkDrop(null, [], 0, 's'));
    // Entries a newer curated list covers are still matched: leaving them out drops nothing.
    assert.doesNotThrow(() => checkDrop(previous, ['A', 'B', 'C'].map(entry), 0.2, 's', new Set(['d', 'e'])));
  });
});

describe('reading a list to sync', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/big') {
        response.end('x'.repeat(5000));
        return;
      }
      if (request.url === '/moved') {
        response.writeHead(302, { location: '/list' });
        response.end();
        return;
      }
      if (request.url === '/missing') {
        response.statusCode = 404;
        response.end();
        return;
      }
      response.end(robots({ LocalBot: 'AI Assistants' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a URL is fetched; an error status, a redirect, an oversized body or a missing file is refused', async () => {
    assert.match(await readAgentListSource(`${base}/list`), /LocalBot/);
    await assert.rejects(readAgentListSource(`${base}/missing`), /answered HTTP 404; nothing changed/);
    // Not followed: the one outbound path returns a redirect as it is.
    await assert.rejects(readAgentListSource(`${base}/moved`), /answered HTTP 302; nothing changed/);
    await assert.rejects(readAgentListSource(`${base}/big`, { maxBytes: 1000 }), /larger than 1000 bytes/);
    await assert.rejects(readAgentListSource('/no/such/list.json'), /Cannot read \/no\/such\/list\.json/);
  });
});

await forEachBackend('synced agent list', ({ db }) => {
  test('each change is a new version; the same list again adds none; a refused sync changes nothing', async () => {
    const first = await syncAgentList(db(), {
      text: robots({
        AlphaBot: 'AI Data Scrapers',
        BetaBot: 'AI Assistants',
        GammaBot: 'AI Search Crawlers',
      }),
      source: 'one.json',
      maxDropShare: 0.2,
    });
    assert.deepEqual([first.version, first.changed, first.entries], [1, true, 3]);
    assert.deepEqual(first.added.sort(), ['AlphaBot', 'BetaBot', 'GammaBot']);
    const again = await syncAgentList(db(), {
      text: robots({
        AlphaBot: 'AI Data Scrapers',
        BetaBot: 'AI Assistants',
        GammaBot: 'AI Search Crawlers',
      }),
      source: 'one.json',
      maxDropShare: 0.2,
    });
    assert.deepEqual([again.version, again.changed], [1, false]);
    await assert.rejects(
      syncAgentList(db(), {
        text: robots({ AlphaBot: 'AI Data Scrapers' }),
        source: 'two.json',
        maxDropShare: 0.2,
      }),
      /would drop 2 of the 3 synced entries/,
    );
    await assert.rejects(
      syncAgentList(db(), { text: 'nope', source: 'bad.json', maxDropShare: 1 }),
      /not JSON/,
    );
    assert.equal(await selectLatestAgentListVersion(db()), 1);
    const next = await syncAgentList(db(), {
      text: robots({
        AlphaBot: 'AI Data Scrapers',
        BetaBot: 'AI Assistants',
        GammaBot: 'AI Search Crawlers',
        DeltaBot: 'AI Assistants',
      }),
      source: 'three.json',
      maxDropShare: 0.2,
    });
    assert.deepEqual([next.version, next.changed, next.added], [2, true, ['DeltaBot']]);
  });

  describe('a running server', () => {
    let app: App;
    let seeded: Awaited<ReturnType<typeof seedProject>>;
    const context = testContext();
    let refresher: AgentListRefresher;
    const userAgent = 'Mozilla/5.0 (compatible; NovelAgent/2.0; +https://novel.example/bot)';

    before(async () => {
      app = await buildApp({
        db: db(),
        logger: createLogger('silent'),
        config: {
          jobRateLimitPerHour: 100,
          defaultModel: 'openai:gpt-test',
          publicUrl: 'http://127.0.0.1:3000',
        },
        classification: context,
      });
      seeded = await seedProject(db());
      refresher = new AgentListRefresher(db(), context, { intervalMs: 20 });
      await refresher.refreshNow();
      refresher.start();
    });
    after(async () => {
      await refresher.stop();
      await app.close();
    });

    const agents = async () => {
      const res = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/agents`,
        headers: bearer(seeded.readKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      return (
        res.json() as {
          agents: { agent: string; operator: string | null; category: string | null; total: number }[];
        }
      ).agents;
    };

    test('classifies a newly synced agent as AI within the refresh interval, with its operator', async () => {
      const post = async () => {
        const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [
          { path: '/guide', userAgent },
        ]);
        assert.equal(res.statusCode, 202, res.body);
      };
      await post(); // before the sync: the string is cached as not AI
      assert.equal(
        (await agents()).some((a) => a.agent === 'NovelAgent'),
        false,
      );
      const before = context.agentList?.version ?? 0;

      const synced = await syncAgentList(db(), {
        text: robots({
          AlphaBot: 'AI Data Scrapers',
          BetaBot: 'AI Assistants',
          GammaBot: 'AI Search Crawlers',
          DeltaBot: 'AI Assistants',
          NovelAgent: 'AI Assistants',
        }),
        source: 'four.json',
        maxDropShare: 0.2,
      });
      assert.ok(synced.version > before);
      await until(() => context.agentList?.version === synced.version, 'the refresher to pick up the sync');
      await post();
      const row = (await agents()).find((a) => a.agent === 'NovelAgent');
      assert.deepEqual(row && [row.total, row.operator, row.category], [1, 'Op NovelAgent', 'assistant']);
    });
  });

  test('the scheduled sync fetches the configured URL and the list in use follows', async () => {
    const server = createServer((_request, response) => {
      response.end(
        robots({
          AlphaBot: 'AI Data Scrapers',
          BetaBot: 'AI Assistants',
          GammaBot: 'AI Search Crawlers',
          DeltaBot: 'AI Assistants',
          NovelAgent: 'AI Assistants',
          ScheduledBot: 'AI Search Crawlers',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/robots.json`;
    const context = testContext();
    const updates = await startAgentListUpdates(
      db(),
      context,
      { refreshMs: 60_000, syncUrl: url, syncIntervalMs: 3_600_000, maxDropShare: 0.2 },
      createLogger('silent'),
    );
    try {
      await updates.syncNow();
      assert.equal(context.agentList?.source, url);
      assert.ok(context.agents.some((agent) => agent.name === 'ScheduledBot'));
      const verdict = context.userAgents.classify('ScheduledBot/1.0');
      assert.equal(verdict.agent?.name, 'ScheduledBot');
    } finally {
      await updates.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// The synced AI-referrer list, as the agent list's sync (agent-sync.test.ts): the curated list
// checked by the same rules, curated assistants, hosts and utm_sources winning, refusals that
// change nothing, versions stored on both engines, and a running server that counts a newly
// synced assistant's readers in /referrals and /agents within its refresh interval, without a
// restart, also when the sync is the server's own scheduled one.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { ReferrerListRefresher } from '../../src/modules/analytics/classification/agent-list-refresh.ts';
import { startAgentListUpdates } from '../../src/modules/analytics/classification/agent-list-updates.ts';
import {
  curatedAiReferrers,
  loadReferrerList,
  type ReferrerEntry,
} from '../../src/modules/analytics/classification/ai-referrers.ts';
import { AgentSyncRefused, checkDrop } from '../../src/modules/analytics/classification/list-sync.ts';
import {
  prepareReferrerSync,
  selectLatestReferrerList,
  syncReferrerList,
} from '../../src/modules/analytics/classification/referrer-sync.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { testContext } from './fixtures/context.ts';
import { postRecords, until } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const curated = loadReferrerList();
const entry = (name: string, hosts: string[], utmSources: string[] = []): ReferrerEntry => ({
  name,
  operator: `Op ${name}`,
  hosts,
  utmSources,
  sources: [`https://${hosts[0] ?? 'example.com'}/`],
});
const list = (...assistants: ReferrerEntry[]) => JSON.stringify({ assistants });

describe('the curated list', () => {
  test('passes the checks a synced list must pass, and records where each entry came from', () => {
    assert.ok(curated.length >= 5);
    for (const assistant of curated) assert.ok(assistant.sources.length > 0, assistant.name);
    assert.equal(curatedAiReferrers().entries.length, curated.length);
  });
});

describe('preparing a sync', () => {
  test('new assistants kept; curated names, hosts and utm_sources left to the curated list', () => {
    const prepared = prepareReferrerSync(
      list(
        entry('Fresh', ['fresh.example'], ['fresh']),
        entry('ChatGPT', ['chatgpt.example']),
        entry('Mixed', ['mixed.example', 'claude.ai'], ['chatgpt.com', 'mixed']),
        entry('Shadow', ['perplexity.ai'], ['perplexity']),
      ),
      'ours.json',
      curated,
    );
    assert.equal(prepared.format, 'docwright');
    assert.deepEqual(
      prepared.entries.map((e) => [e.name, e.hosts, e.utmSources]),
      [
        ['Fresh', ['fresh.example'], ['fresh']],
        ['Mixed', ['mixed.example'], ['mixed']],
      ],
    );
    assert.deepEqual(prepared.skipped.map((s) => s.token).sort(), ['ChatGPT', 'Shadow']);
  });

  test('a list that does not parse, is not in the format, or cannot match is refused', () => {
    const refuse = (text: string, pattern: RegExp) =>
      assert.throws(
        () => prepareReferrerSync(text, 'a.json', curated),
        (error: Error) => {
          assert.ok(error instanceof AgentSyncRefused, error.message);
          assert.match(error.message, pattern);
          assert.match(error.message, /nothing changed/);
          return true;
        },
      );
    refuse('{"x": ', /not JSON/);
    refuse('[1, 2]', /invalid/);
    refuse(JSON.stringify({ assistants: [{ name: 'X' }] }), /invalid/);
    refuse(list({ ...entry('X', ['x.example']), sources: [] }), /invalid/);
    refuse(list(entry('X', ['X.Example'])), /invalid/); // hosts are lower case, as matched
    refuse(list(entry('X', ['com'])), /invalid/); // a bare TLD would claim every .com referrer
    refuse(list(entry('X', ['https://x.example/'])), /invalid/);
    refuse(list(entry('X', [], [])), /can never match/);
    refuse(list(entry('X', ['x.example']), entry('Y', ['x.example'])), /belongs to both X and Y/);
    refuse(list(entry('X', ['x.example']), entry('x', ['y.example'])), /listed twice/);
    refuse(JSON.stringify({ assistants: [] }), /holds no assistants/);
  });

  test('the drop check is the agent list one', () => {
    const previous = { entries: ['A', 'B', 'C', 'D', 'E'].map((n) => entry(n, [`${n}.example`])) };
    assert.throws(
      () => checkDrop(previous, [entry('A', ['a.example'])], 0.2, 's'),
      /would drop 4 of the 5 synced entries/,
    );
  });
});

await forEachBackend('synced AI-referrer list', ({ db }) => {
  const one = list(
    entry('Alpha', ['alpha.example']),
    entry('Beta', ['beta.example']),
    entry('Gamma', ['gamma.example']),
  );

  test('each change is a new version; the same list again adds none; a refused sync changes nothing', async () => {
    const first = await syncReferrerList(db(), { text: one, source: 'one.json', maxDropShare: 0.2 });
    assert.deepEqual([first.version, first.changed, first.entries, first.format], [1, true, 3, 'docwright']);
    assert.deepEqual(first.added.sort(), ['Alpha', 'Beta', 'Gamma']);
    const again = await syncReferrerList(db(), { text: one, source: 'one.json', maxDropShare: 0.2 });
    assert.deepEqual([again.version, again.changed], [1, false]);
    await assert.rejects(
      syncReferrerList(db(), {
        text: list(entry('Alpha', ['alpha.example'])),
        source: 'two.json',
        maxDropShare: 0.2,
      }),
      /would drop 2 of the 3 synced entries/,
    );
    await assert.rejects(
      syncReferrerList(db(), { text: 'nope', source: 'bad.json', maxDropShare: 1 }),
      /not JSON/,
    );
    const stored = await selectLatestReferrerList(db());
    assert.deepEqual([stored?.version, stored?.source, stored?.entries.length], [1, 'one.json', 3]);
  });

  describe('a running server', () => {
    let app: App;
    let seeded: Awaited<ReturnType<typeof seedProject>>;
    const context = testContext();
    let refresher: ReferrerListRefresher;

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
      refresher = new ReferrerListRefresher(db(), context, { intervalMs: 20 });
      await refresher.refreshNow();
      refresher.start();
    });
    after(async () => {
      await refresher.stop();
      await app.close();
    });

    const report = async (name: 'referrals' | 'agents') => {
      const res = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/${name}`,
        headers: bearer(seeded.readKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    test('counts a newly synced assistant as a referrer within the refresh interval, with its operator', async () => {
      const post = async () => {
        const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [
          { path: '/guide', userAgent: CHROME, referrer: 'https://www.novel.example/answer/1' },
          { url: 'https://docs.example.com/guide?utm_source=novel', userAgent: CHROME },
        ]);
        assert.equal(res.statusCode, 202, res.body);
      };
      await post(); // before the sync: not a referral
      assert.deepEqual((await report('referrals')).totals, { views: 0 });
      const synced = await syncReferrerList(db(), {
        text: list(
          entry('Alpha', ['alpha.example']),
          entry('Beta', ['beta.example']),
          entry('Gamma', ['gamma.example']),
          entry('Novel', ['novel.example'], ['novel']),
        ),
        source: 'four.json',
        maxDropShare: 0.2,
      });
      await until(
        () => context.referrerList?.version === synced.version,
        'the refresher to pick up the sync',
      );
      await post();
      const referrals = await report('referrals');
      assert.deepEqual(referrals.assistants, [{ assistant: 'Novel', operator: 'Op Novel', views: 2 }]);
      const agents = await report('agents');
      assert.deepEqual(agents.operators, [{ operator: 'Op Novel', crawls: 0, referrals: 2 }]);
      // The curated assistants still match, ahead of the synced ones.
      assert.equal(context.referrers.assistantOf('https://chatgpt.com/', null)?.name, 'ChatGPT');
    });
  });

  test('the scheduled sync fetches the configured URL and the list in use follows', async () => {
    const server = createServer((_request, response) => {
      response.end(
        list(
          entry('Alpha', ['alpha.example']),
          entry('Beta', ['beta.example']),
          entry('Gamma', ['gamma.example']),
          entry('Novel', ['novel.example'], ['novel']),
          entry('Scheduled', ['scheduled.example']),
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/referrers.json`;
    const context = testContext();
    const updates = await startAgentListUpdates(
      db(),
      context,
      {
        refreshMs: 60_000,
        syncUrl: null,
        referrerSyncUrl: url,
        syncIntervalMs: 3_600_000,
        maxDropShare: 0.2,
      },
      createLogger('silent'),
    );
    try {
      await updates.syncNow();
      assert.equal(context.referrerList?.source, url);
      assert.equal(context.referrers.assistantOf('https://scheduled.example/x', null)?.name, 'Scheduled');
      assert.equal(context.agentList, null, 'the agent list has no URL: untouched');
    } finally {
      await updates.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

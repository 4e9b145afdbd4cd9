// GET /v1/analytics/{projectId}/agents over rollups seeded through recordPageViews: per-agent AI
// views with operator and category from the agent list, verified and unverified, ordering, paging,
// date rules and access. Each test uses its own project.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { agentCatalog } from '../../src/modules/analytics/agent-catalog.ts';
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

type Seeded = Awaited<ReturnType<typeof seedProject>>;
interface AgentRow {
  agent: string;
  operator: string | null;
  category: string | null;
  verified: number;
  unverified: number;
  total: number;
}
interface AgentReport {
  totals: { verified: number; unverified: number; total: number };
  agents: AgentRow[];
  hasMore: boolean;
  range: { from: string | null; to: string | null };
}

const at = (iso: string) => new Date(iso);

test('agentCatalog: operator and category by name, the first entry of a name wins, unknown is null', () => {
  const catalog = agentCatalog([
    { name: 'GPTBot', operator: 'OpenAI', category: 'training' },
    { name: 'GPTBot', operator: 'Someone else', category: 'search' },
    { name: 'Aider', operator: 'Aider', category: 'coding' },
  ]);
  assert.deepEqual(catalog('GPTBot'), { operator: 'OpenAI', category: 'training' });
  assert.deepEqual(catalog('Aider'), { operator: 'Aider', category: 'coding' });
  assert.deepEqual(catalog('markdown-client'), { operator: null, category: 'other_ai' });
  assert.deepEqual(catalog('NoSuchBot'), { operator: null, category: null });
});

await forEachBackend('agents export', ({ db }) => {
  let app: App;
  before(async () => {
    app = await createTestApp(db());
  });
  after(() => app.close());

  const get = (seeded: Seeded, query = '', key = seeded.readKey) =>
    app.inject({
      method: 'GET',
      url: `/v1/analytics/${seeded.project.id}/agents${query}`,
      headers: bearer(key),
    });
  async function report(seeded: Seeded, query = ''): Promise<AgentReport> {
    const res = await get(seeded, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const rows = (seeded: Seeded, list: Omit<PageViewCount, 'projectId'>[]): PageViewCount[] =>
    list.map((r) => ({ ...r, projectId: seeded.project.id }));
  const ai = (
    hour: string,
    agent: string,
    verification: string,
    views: number,
  ): Omit<PageViewCount, 'projectId'> => ({
    hour: at(hour),
    path: `/p/${views}`,
    trafficClass: 'ai',
    agent,
    verification,
    views,
  });

  describe('the report', () => {
    let seeded: Seeded;
    before(async () => {
      seeded = await seedProject(db());
      await recordPageViews(
        db(),
        rows(seeded, [
          ai('2025-05-01T09:00:00Z', 'GPTBot', 'verified', 7),
          ai('2025-05-01T10:00:00Z', 'GPTBot', 'unverified', 2),
          ai('2025-05-02T10:00:00Z', 'ClaudeBot', 'unverified', 9),
          ai('2025-05-02T11:00:00Z', 'markdown-client', 'unverified', 3),
          ai('2025-05-02T11:00:00Z', 'RetiredBot', 'unverified', 1),
          // Humans and non-AI bots are in neither the rows nor the totals.
          { hour: at('2025-05-01T09:00:00Z'), path: '/h', trafficClass: 'human', views: 100 },
          {
            hour: at('2025-05-01T09:00:00Z'),
            path: '/b',
            trafficClass: 'bot',
            agent: 'googlebot',
            views: 50,
          },
        ]),
      );
    });

    test('per agent: operator and category from the list, verified + unverified = total', async () => {
      const res = await get(seeded);
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      const body: AgentReport = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['agents', 'hasMore', 'operators', 'range', 'totals']);
      assert.deepEqual(body.totals, { verified: 7, unverified: 15, total: 22 });
      assert.deepEqual(body.agents, [
        {
          agent: 'ClaudeBot',
          operator: 'Anthropic',
          category: 'training',
          verified: 0,
          unverified: 9,
          total: 9,
        },
        { agent: 'GPTBot', operator: 'OpenAI', category: 'training', verified: 7, unverified: 2, total: 9 },
        {
          agent: 'markdown-client',
          operator: null,
          category: 'other_ai',
          verified: 0,
          unverified: 3,
          total: 3,
        },
        { agent: 'RetiredBot', operator: null, category: null, verified: 0, unverified: 1, total: 1 },
      ]);
      assert.equal(body.hasMore, false);
      assert.deepEqual(body.range, { from: null, to: null });
    });

    test('ties on total are ordered by agent in byte order; paging walks every agent once', async () => {
      const paged: string[] = [];
      for (let offset = 0; ; offset += 1) {
        const page = await report(seeded, `?limit=1&offset=${offset}`);
        assert.deepEqual(page.totals, { verified: 7, unverified: 15, total: 22 }, 'totals on every page');
        paged.push(...page.agents.map((a) => a.agent));
        if (!page.hasMore) break;
      }
      assert.deepEqual(paged, ['ClaudeBot', 'GPTBot', 'markdown-client', 'RetiredBot']);
      const past = await report(seeded, '?offset=10');
      assert.deepEqual(past.agents, []);
      assert.equal(past.hasMore, false);
    });

    test('date range: dateFrom inclusive, dateTo exclusive, on hours and with offsets', async () => {
      const day1 = await report(seeded, '?dateFrom=2025-05-01&dateTo=2025-05-02');
      assert.deepEqual(
        day1.agents.map((a) => [a.agent, a.verified, a.unverified]),
        [['GPTBot', 7, 2]],
      );
      assert.deepEqual(day1.range, { from: '2025-05-01T00:00:00.000Z', to: '2025-05-02T00:00:00.000Z' });
      // 11:00+01:00 is 10:00Z: the 10:00 hour is excluded, 09:00 counted.
      const hour = await report(seeded, `?dateTo=${encodeURIComponent('2025-05-01T11:00:00+01:00')}`);
      assert.deepEqual(hour.totals, { verified: 7, unverified: 0, total: 7 });
      // Inside an hour: widened outward, as /views does.
      const inside = await report(seeded, '?dateFrom=2025-05-02T10:30:00Z&dateTo=2025-05-02T10:45:00Z');
      assert.deepEqual(
        inside.agents.map((a) => a.agent),
        ['ClaudeBot'],
      );
      assert.deepEqual(inside.range, { from: '2025-05-02T10:00:00.000Z', to: '2025-05-02T11:00:00.000Z' });
    });

    test('read and admin keys may export; ingest keys, other projects and no key may not', async () => {
      assert.equal((await get(seeded, '', seeded.adminKey)).statusCode, 200);
      const ingest = await get(seeded, '', seeded.ingestKey);
      assert.equal(ingest.statusCode, 403);
      assert.equal(ingest.json().code, 'insufficient_scope');
      const other = await seedProject(db());
      assert.equal((await get(seeded, '', other.readKey)).json().code, 'project_forbidden');
      const none = await app.inject({ method: 'GET', url: `/v1/analytics/${seeded.project.id}/agents` });
      assert.equal(none.statusCode, 401);
    });

    test('the same parameter rules as /views: each bad one is a 400 naming it', async () => {
      for (const [query, name, code] of [
        ['?limit=0', 'limit', 'invalid_parameter'],
        ['?limit=251', 'limit', 'invalid_parameter'],
        ['?offset=-1', 'offset', 'invalid_parameter'],
        ['?limit=1e2', 'limit', 'invalid_parameter'],
        ['?limit=1&limit=2', 'limit', 'invalid_parameter'],
        ['?dateFrom=2025-02-30', 'dateFrom', 'invalid_parameter'],
        ['?dateTo=yesterday', 'dateTo', 'invalid_parameter'],
        ['?dateFrom=2025-05-02&dateTo=2025-05-02', 'dateTo', 'invalid_date_range'],
      ] as const) {
        const res = await get(seeded, query);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, code, query);
        assert.equal(res.json().details[0].name, name, query);
      }
    });
  });

  test('a project without AI views answers zeros and no agents', async () => {
    const empty = await seedProject(db());
    await recordPageViews(db(), [
      {
        projectId: empty.project.id,
        hour: at('2025-05-01T09:00:00Z'),
        path: '/',
        trafficClass: 'human',
        views: 3,
      },
    ]);
    assert.deepEqual(await report(empty), {
      totals: { verified: 0, unverified: 0, total: 0 },
      agents: [],
      hasMore: false,
      operators: [],
      range: { from: null, to: null },
    });
  });

  test('counts over edge hours and whole days add up to the hourly rows', async () => {
    const seeded = await seedProject(db());
    const list: Omit<PageViewCount, 'projectId'>[] = [];
    const agents = ['GPTBot', 'ClaudeBot', 'PerplexityBot'];
    // Four days of hours, a different count in each: any mistake at a day edge changes a sum.
    for (let h = 0; h < 96; h++) {
      const hour = new Date(Date.UTC(2025, 6, 1, h));
      list.push({
        hour,
        path: '/x',
        trafficClass: 'ai',
        agent: agents[h % 3]!,
        verification: h % 2 ? 'verified' : 'unverified',
        views: h + 1,
      });
    }
    await recordPageViews(db(), rows(seeded, list));
    const from = Date.UTC(2025, 6, 1, 7);
    const to = Date.UTC(2025, 6, 3, 21);
    const body = await report(
      seeded,
      `?dateFrom=${new Date(from).toISOString()}&dateTo=${new Date(to).toISOString()}`,
    );
    const expected = new Map<string, { verified: number; unverified: number }>();
    for (const row of list) {
      const t = row.hour.getTime();
      if (t < from || t >= to) continue;
      const e = expected.get(row.agent!) ?? { verified: 0, unverified: 0 };
      if (row.verification === 'verified') e.verified += row.views;
      else e.unverified += row.views;
      expected.set(row.agent!, e);
    }
    assert.deepEqual(
      Object.fromEntries(
        body.agents.map((a) => [a.agent, { verified: a.verified, unverified: a.unverified }]),
      ),
      Object.fromEntries(expected),
    );
  });
});

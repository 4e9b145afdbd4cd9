// Distinct visitors (migration 0015): the sketch's exactness and error bound, and the export
// through the real app on both engines: ids from ingest, union totals, AI agents by IP address,
// merged across levels, CSV, the daily salt's privacy (no raw address stored, old salts deleted),
// and the same validation as /views.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { GroupCommitWriter } from '../../src/modules/analytics/ingest/group-commit.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';
import { VisitorSketch } from '../../src/modules/analytics/store/visitor-sketch.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { ingestTestApp, postRecords } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDEBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';

/** A deterministic pseudo-random 53-bit id stream (the ids' own hash is SHA-256). */
function ids(seed: number): () => number {
  let state = seed >>> 0;
  const next32 = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return () => (next32() & 0x1fffff) * 2 ** 32 + next32();
}

test('a sketch counts exactly up to its limit, and merges like a set union', () => {
  const next = ids(1);
  const a = new VisitorSketch();
  const b = new VisitorSketch();
  const shared = Array.from({ length: 500 }, next);
  for (const id of shared) {
    a.add(id);
    b.add(id);
  }
  for (let i = 0; i < 700; i++) a.add(next());
  for (let i = 0; i < 800; i++) b.add(next());
  assert.equal(a.count(), 1200);
  assert.equal(VisitorSketch.decode(a.encode()).count(), 1200);
  a.merge(b);
  assert.equal(a.count(), 2000);
  assert.ok(a.exact);
  b.merge(a);
  assert.equal(b.count(), 2000, 'merging is commutative');
});

test('a dense sketch stays within 2% of the exact count, and survives encoding and merging', () => {
  const next = ids(7);
  let worst = 0;
  for (const n of [3000, 10_000, 50_000, 200_000]) {
    const halves = [new VisitorSketch(), new VisitorSketch()];
    for (let i = 0; i < n; i++) halves[i % 2]!.add(next());
    const union = VisitorSketch.decode(halves[0]!.encode());
    union.merge(VisitorSketch.decode(halves[1]!.encode()));
    assert.equal(union.exact, false);
    worst = Math.max(worst, Math.abs(union.count() - n) / n);
  }
  assert.ok(worst < 0.02, `worst relative error ${worst}`);
  assert.throws(() => VisitorSketch.decode(new Uint8Array([9, 1, 2])), /not a sketch/);
});

/** A register's rank as the sketch's first version computed it (a reference for its faster form). */
function referenceRegister(id: number): { index: number; rank: number } {
  const index = id % 2 ** 14;
  const rest = Math.floor(id / 2 ** 14);
  const high = Math.floor(rest / 2 ** 32);
  const bits = high > 0 ? 64 - Math.clz32(high) : 32 - Math.clz32(rest >>> 0);
  return { index, rank: 39 - bits + 1 };
}

test('a dense sketch puts each id in the register and rank of the reference formula', () => {
  const next = ids(11);
  const edges = [
    0,
    1,
    2 ** 14 - 1,
    2 ** 14,
    2 ** 31,
    2 ** 32 - 1,
    2 ** 32,
    2 ** 46 - 1,
    2 ** 46,
    2 ** 53 - 1,
  ];
  for (let round = 0; round < 200; round++) {
    // Ids of every magnitude, so ranks from 1 to 40 all occur.
    const batch =
      round === 0 ? edges : Array.from({ length: 50 }, () => Math.floor(next() / 2 ** (round % 54)));
    const sketch = new VisitorSketch();
    const expected = new Uint8Array(2 ** 14);
    for (const id of batch) {
      const { index, rank } = referenceRegister(id);
      expected[index] = Math.max(expected[index]!, rank);
    }
    // An empty sketch made dense by merging empty registers; then every id goes to a register.
    const dense = new Uint8Array(2 ** 14 + 1);
    dense[0] = 2;
    sketch.merge(VisitorSketch.decode(dense));
    for (const id of batch) sketch.add(id);
    assert.deepEqual(sketch.encode().subarray(1), expected, `round ${round}`);
  }
});

test('the union of encoded sketches is the same sketch as merging them one by one', () => {
  const next = ids(5);
  const pool = Array.from({ length: 6000 }, next);
  // Seeded like the pool, so a failing round is the same on the next run.
  const choose = ids(11);
  const pick = () => pool[choose() % pool.length]!;
  for (let round = 0; round < 60; round++) {
    const rows: Uint8Array[] = [];
    const count = 1 + (round % 7);
    for (let r = 0; r < count; r++) {
      const sketch = new VisitorSketch();
      // Mostly exact sets of shared ids (unions under and over the limit), some dense.
      const size = [0, 3, 300, 900, 2048, 2500][(round + r) % 6]!;
      for (let i = 0; i < size; i++) sketch.add(pick());
      rows.push(sketch.encode());
    }
    const oneByOne = VisitorSketch.decode(rows[0]!);
    for (const bytes of rows.slice(1)) oneByOne.merge(VisitorSketch.decode(bytes));
    const union = VisitorSketch.union(rows);
    assert.equal(union.exact, oneByOne.exact, `round ${round}`);
    assert.equal(union.count(), oneByOne.count(), `round ${round}`);
    assert.deepEqual(union.encode(), oneByOne.encode(), `round ${round}`);
  }
  // A union of exactly EXACT_LIMIT (2,048) ids stays exact; one more id makes it dense.
  for (const extra of [0, 1]) {
    const a = new VisitorSketch();
    const b = new VisitorSketch();
    for (let i = 0; i < 1500; i++) a.add(pool[i]!);
    for (let i = 1000; i < 2048 + extra; i++) b.add(pool[i]!);
    const union = VisitorSketch.union([a.encode(), b.encode()]);
    assert.equal(union.exact, extra === 0);
    if (extra === 0) assert.equal(union.count(), 2048);
  }
  assert.equal(VisitorSketch.union([]).count(), 0);
  assert.throws(() => VisitorSketch.union([new Uint8Array([9, 1, 2])]), /not a sketch/);
});

test('ids: the same sender is the same id, memoised or not; AI agents by address; salts unlink days', () => {
  const today = new VisitorHasher(new Uint8Array(32).fill(1));
  const tomorrow = new VisitorHasher(new Uint8Array(32).fill(2));
  const id = today.id('prj_a', 'human', '192.0.2.1', CHROME);
  assert.ok(id !== null && Number.isSafeInteger(id) && id >= 0);
  assert.equal(today.id('prj_a', 'human', '192.0.2.1', CHROME), id, 'memoised: the same id');
  assert.equal(new VisitorHasher(new Uint8Array(32).fill(1)).id('prj_a', 'human', '192.0.2.1', CHROME), id);
  assert.notEqual(today.id('prj_a', 'human', '192.0.2.1', FIREFOX), id);
  assert.notEqual(today.id('prj_b', 'human', '192.0.2.1', CHROME), id, 'projects do not share ids');
  assert.notEqual(tomorrow.id('prj_a', 'human', '192.0.2.1', CHROME), id, 'another day, another id');
  assert.equal(today.id('prj_a', 'ai', '192.0.2.9', GPTBOT), today.id('prj_a', 'ai', '192.0.2.9', CLAUDEBOT));
  assert.equal(today.id('prj_a', 'human', undefined, undefined), null);
  const long = `${CHROME} ${'x'.repeat(10_000)}`;
  assert.equal(today.id('prj_a', 'human', '192.0.2.1', long), today.id('prj_a', 'human', '192.0.2.1', long));
});

await forEachBackend('distinct visitors', ({ db }) => {
  const visitors = async (
    app: Awaited<ReturnType<typeof ingestTestApp>>,
    projectId: string,
    key: string,
    query = '',
  ) => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${projectId}/visitors${query}`,
      headers: bearer(key),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const at = (hour: number) => new Date(Date.UTC(2026, 9, 20, hour, 15)).toISOString();

  test('humans by address and user agent, AI agents by address; total is the union', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    const res = await postRecords(app, project.id, ingestKey, [
      // Reader 1 reads /a twice and /b; reader 2 (same address, other browser) reads /a.
      { path: '/a', ip: '203.0.113.1', userAgent: CHROME, timestamp: at(9) },
      { path: '/a', ip: '203.0.113.1', userAgent: CHROME, timestamp: at(10) },
      { path: '/b', ip: '203.0.113.1', userAgent: CHROME, timestamp: at(10) },
      { path: '/a', ip: '203.0.113.1', userAgent: FIREFOX, timestamp: at(11) },
      // One address, two agents' names: one AI visitor. Another address: a second one.
      { path: '/a', ip: '198.51.100.7', userAgent: GPTBOT, timestamp: at(9) },
      { path: '/a', ip: '198.51.100.7', userAgent: CLAUDEBOT, timestamp: at(12) },
      { path: '/b', ip: '198.51.100.8', userAgent: GPTBOT, timestamp: at(12) },
      // No address nor user agent: a view, but no visitor.
      { path: '/c', timestamp: at(12) },
    ]);
    assert.equal(res.statusCode, 202, res.body);
    const report = await visitors(app, project.id, readKey, '?dateFrom=2026-10-20&dateTo=2026-10-21');
    assert.deepEqual(report.totals, { human: 2, ai: 2, total: 4 });
    assert.deepEqual(report.visitors, [
      { path: '/a', human: 2, ai: 1, total: 3 },
      { path: '/b', human: 1, ai: 1, total: 2 },
    ]);
    assert.equal(report.hasMore, false);
    // Edge hours only (09:00-11:00): reader 1 on /a and /b, GPTBot's address on /a.
    const hours = await visitors(
      app,
      project.id,
      readKey,
      '?dateFrom=2026-10-20T09:00Z&dateTo=2026-10-20T11:00Z',
    );
    assert.deepEqual(hours.totals, { human: 1, ai: 1, total: 2 });
    // Unbounded: months and days merged give the same answer.
    const all = await visitors(app, project.id, readKey);
    assert.deepEqual(all.totals, report.totals);
    assert.deepEqual(all.visitors, report.visitors);
    // Paging and CSV, as /views.
    const first = await visitors(app, project.id, readKey, '?limit=1');
    assert.deepEqual(first.visitors, [report.visitors[0]]);
    assert.equal(first.hasMore, true);
    const csv = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/visitors?limit=1`,
      headers: { ...bearer(readKey), accept: 'text/csv' },
    });
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.body, 'path,human,ai,total\r\n/a,2,1,3\r\n');
    assert.match(String(csv.headers.link), /offset=1/);
    await app.close();
  });

  test('a later batch changes the ranking; nothing stored holds an address, old salts are deleted', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    await postRecords(app, project.id, ingestKey, [
      { path: '/x', ip: '192.0.2.44', userAgent: CHROME, timestamp: at(9) },
    ]);
    const before = await visitors(app, project.id, readKey);
    assert.deepEqual(before.totals, { human: 1, ai: 0, total: 1 });
    const more = Array.from({ length: 30 }, (_, i) => ({
      path: '/y',
      ip: `192.0.2.${i}`,
      userAgent: CHROME,
      timestamp: at(10),
    }));
    await postRecords(app, project.id, ingestKey, more);
    const after = await visitors(app, project.id, readKey);
    assert.equal(after.visitors[0].path, '/y');
    assert.equal(after.totals.human, 31, '192.0.2.44 and 192.0.2.0-29 with one browser');
    const stored = await db().query<{ human: Uint8Array | null }>(
      'SELECT human FROM visitor_sketches WHERE project_id = $1',
      [project.id],
    );
    for (const row of stored) assert.ok(!Buffer.from(row.human!).toString('latin1').includes('192.0.2'));
    // A salt of an earlier day goes when the first view of a new day asks for one.
    await db().query(
      `INSERT INTO visitor_salts (day, salt) VALUES ('2000-01-01', decode(repeat('ab', 32), 'hex'))`,
    );
    const later = await ingestTestApp(db());
    await postRecords(later, project.id, ingestKey, [{ path: '/x', ip: '192.0.2.44', userAgent: CHROME }]);
    const old = await db().query(`SELECT day FROM visitor_salts WHERE day < current_date`);
    assert.equal(old.length, 0);
    await later.close();
    await app.close();
  });

  test('committed ids wait in visitor_ids_staged until a fold; each is folded once', async () => {
    const writer = new GroupCommitWriter(db(), { merger: { delayMs: 600_000 } });
    const app = await ingestTestApp(db(), { writer });
    const { project, ingestKey, readKey } = await seedProject(db());
    const records = [
      { path: '/f', ip: '192.0.2.1', userAgent: CHROME, timestamp: at(9) },
      { path: '/f', ip: '192.0.2.2', userAgent: CHROME, timestamp: at(9) },
    ];
    assert.equal((await postRecords(app, project.id, ingestKey, records)).statusCode, 202);
    await mergeStagedViews(db());
    const staged = await db().query('SELECT id FROM visitor_ids_staged');
    assert.ok(staged.length >= 1, 'the ids are staged, not written to the sketches yet');
    const first = await visitors(app, project.id, readKey);
    assert.deepEqual(first.totals, { human: 2, ai: 0, total: 2 });
    assert.equal((await db().query('SELECT id FROM visitor_ids_staged')).length, 0);
    // The same readers again: the same visitors, not new ones.
    assert.equal((await postRecords(app, project.id, ingestKey, records)).statusCode, 202);
    const second = await visitors(app, project.id, readKey);
    assert.deepEqual(second.totals, { human: 2, ai: 0, total: 2 });
    await app.close();
  });

  test('the browser script counts its sender as a visitor, by address and user agent', async () => {
    const app = await buildApp({
      db: db(),
      logger: createLogger('silent'),
      config: {
        jobRateLimitPerHour: 100,
        defaultModel: 'openai:gpt-test',
        publicUrl: 'http://127.0.0.1:3000',
      },
      collect: { rateLimit: { burst: 10_000 } },
    });
    const { project, readKey } = await seedProject(db(), {
      settings: { allowedOrigins: ['https://docs.example.com'] },
    });
    const post = (path: string, userAgent: string, remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/analytics/${project.id}/collect`,
        headers: {
          origin: 'https://docs.example.com',
          'user-agent': userAgent,
          'content-type': 'text/plain;charset=UTF-8',
        },
        payload: JSON.stringify({ path }),
        remoteAddress,
      });
    for (const [path, agent, address] of [
      ['/p', CHROME, '192.0.2.10'],
      ['/q', CHROME, '192.0.2.10'],
      ['/p', FIREFOX, '192.0.2.10'],
      ['/p', CHROME, '192.0.2.11'],
    ] as const)
      assert.equal((await post(path, agent, address)).statusCode, 202);
    const report = await visitors(app, project.id, readKey);
    assert.deepEqual(report.totals, { human: 3, ai: 0, total: 3 });
    assert.deepEqual(report.visitors[0], { path: '/p', human: 3, ai: 0, total: 3 });
    await app.close();
  });

  test('the same validation as /views: a bad date or limit is a 400 naming it', async () => {
    const app = await ingestTestApp(db());
    const { project, readKey } = await seedProject(db());
    const bad = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/visitors?dateFrom=2026-13-01`,
      headers: bearer(readKey),
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_parameter');
    const reversed = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/visitors?dateFrom=2026-02-01&dateTo=2026-01-01`,
      headers: bearer(readKey),
    });
    assert.equal(reversed.statusCode, 400);
    assert.equal(reversed.json().code, 'invalid_date_range');
    const limit = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/visitors?limit=0`,
      headers: bearer(readKey),
    });
    assert.equal(limit.statusCode, 400);
    const empty = await visitors(app, project.id, readKey);
    assert.deepEqual(empty, {
      totals: { human: 0, ai: 0, total: 0 },
      visitors: [],
      hasMore: false,
      range: { from: null, to: null },
    });
    await app.close();
  });
});

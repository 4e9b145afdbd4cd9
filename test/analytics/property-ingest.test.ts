// Property: random request records, ingested over HTTP in random batches (JSON or NDJSON), come
// out of the export exactly as an independent count of the same records says. The expected class
// of each record comes from the hand-made table of real user agents (not from the classifier),
// and the generator keeps to records whose fate the test can know on its own: no Markdown
// signals, no signatures; the drop rules used are the documented ones (method, status, asset).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { App } from '../../src/http/context.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { USER_AGENT_CASES } from './fixtures/user-agents.ts';
import {
  allViews,
  type IngestAnswer,
  ingestTestApp,
  type PathViews,
  postNdjson,
  postRecords,
} from './ingest-helpers.ts';

const HOUR = 3_600_000;
// Every generated timestamp lies in the 12 hours that end two hours before the test started, so
// records without one (counted "now") never fall in a range the test asks about. Few hours and
// few pages make records share rollup keys, within a request and across requests.
const HOURS = 12;
const END = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const START = END - HOURS * HOUR;

type Expected =
  | { kind: 'view'; path: string; class: 'human' | 'ai' | 'bot'; hour: number | null }
  | { kind: 'dropped'; reason: string }
  | { kind: 'rejected' };

interface Generated {
  record: unknown;
  expected: Expected;
}

// Page paths and ways of writing them that all normalise to the page itself.
const PAGES = ['/', '/guide', '/guide/install', '/api/v1', '/café', '/Guide', '/a-very/long/page/name'];
const spelling = fc.constantFrom<(page: string) => { path?: string; url?: string }>(
  (page) => ({ path: page }),
  (page) => ({ path: `${page}/` }),
  (page) => ({ path: `${page}?utm_source=x&b=2` }),
  (page) => ({ path: `${page}#section` }),
  (page) => ({ url: `https://docs.example.com${page}?ref=nav` }),
  (page) => ({ url: `${page}/#top` }),
);

const userAgent = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(...USER_AGENT_CASES).map((c) => ({ ua: c.userAgent, cls: c.expected.class })),
  },
  { weight: 1, arbitrary: fc.constant({ ua: undefined, cls: 'bot' as const }) },
);

// method and status: kept ones, and the dropped ones with their reason.
const method = fc.constantFrom<[string | undefined, string | null]>(
  [undefined, null],
  ['GET', null],
  ['HEAD', null],
  ['get', null],
  ['POST', 'method_not_counted'],
);
const status = fc.constantFrom<[number | undefined, string | null]>(
  [undefined, null],
  [200, null],
  [304, null],
  [204, null],
  [404, 'status_not_counted'],
  [302, 'status_not_counted'],
);

const timestamp = fc.option(
  fc.record({
    at: fc.integer({ min: START, max: END - 1 }),
    style: fc.constantFrom('iso', 'offset', 'seconds'),
  }),
  { nil: undefined },
);

function written(at: number, style: string): string {
  if (style === 'iso') return new Date(at).toISOString();
  if (style === 'seconds') return new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  // The same instant written at +02:00.
  const local = new Date(at + 2 * HOUR).toISOString().replace('Z', '+02:00');
  return local;
}

const goodRecord: fc.Arbitrary<Generated> = fc
  .record({
    page: fc.constantFrom(...PAGES),
    spelling,
    asset: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    userAgent,
    method,
    status,
    timestamp,
  })
  .map(({ page, spelling: spell, asset, userAgent: ua, method: m, status: s, timestamp: t }) => {
    const target = asset ? { path: `/assets${page === '/' ? '' : page}/app.js` } : spell(page);
    const record: Record<string, unknown> = { ...target };
    if (ua.ua !== undefined) record.userAgent = ua.ua;
    if (m[0] !== undefined) record.method = m[0];
    if (s[0] !== undefined) record.status = s[0];
    if (t !== undefined) record.timestamp = written(t.at, t.style);
    // Drops in pipeline order: method, status, then the asset check on the normalised path.
    const reason = m[1] ?? s[1] ?? (asset ? 'asset' : null);
    const expected: Expected =
      reason !== null
        ? { kind: 'dropped', reason }
        : {
            kind: 'view',
            path: page,
            class: ua.cls,
            hour: t === undefined ? null : Math.floor(t.at / HOUR) * HOUR,
          };
    return { record, expected };
  });

const badRecord: fc.Arbitrary<Generated> = fc
  .constantFrom<unknown>(
    { path: 5 },
    { userAgent: 'curl/8' },
    { path: '/x', status: '200' },
    { path: '/x', timestamp: 'soon' },
    { path: '/x', timestamp: '2999-01-01T00:00:00Z' },
    'not a record',
    null,
  )
  .map((record) => ({ record, expected: { kind: 'rejected' } as const }));

const batches = fc
  .array(fc.oneof({ weight: 12, arbitrary: goodRecord }, { weight: 1, arbitrary: badRecord }), {
    minLength: 1,
    maxLength: 200,
    size: 'max', // fast-check's default size would keep arrays to about ten records
  })
  .chain((records) =>
    fc.record({
      records: fc.constant(records),
      // Where the records are cut into requests, and which requests go as NDJSON.
      cuts: fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, records.length - 1) }), { maxLength: 6 }),
      ndjson: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    }),
  );

const range = fc
  .tuple(fc.integer({ min: 0, max: HOURS }), fc.integer({ min: 0, max: HOURS }))
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => [START + Math.min(a, b) * HOUR, START + Math.max(a, b) * HOUR] as const);

/** total desc, then path in byte order: the export's documented order. */
function ordered(counts: Map<string, { human: number; ai: number }>): PathViews[] {
  return [...counts]
    .map(([path, c]) => ({ path, human: c.human, ai: c.ai, total: c.human + c.ai }))
    .filter((v) => v.total > 0)
    .sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function expectedViews(generated: readonly Generated[], inRange: (hour: number | null) => boolean) {
  const counts = new Map<string, { human: number; ai: number }>();
  for (const { expected } of generated) {
    if (expected.kind !== 'view' || expected.class === 'bot' || !inRange(expected.hour)) continue;
    const c = counts.get(expected.path) ?? { human: 0, ai: 0 };
    c[expected.class]++;
    counts.set(expected.path, c);
  }
  const views = ordered(counts);
  const human = views.reduce((n, v) => n + v.human, 0);
  const ai = views.reduce((n, v) => n + v.ai, 0);
  return { totals: { human, ai, total: human + ai }, views };
}

await forEachBackend('ingest property', ({ db }) => {
  let app: App;
  before(async () => {
    app = await ingestTestApp(db());
  });
  after(() => app.close());

  test('every export equals an independent count of the ingested records', async () => {
    await fc.assert(
      fc.asyncProperty(batches, range, async ({ records, cuts, ndjson }, [from, to]) => {
        const seeded = await seedProject(db());
        const projectId = seeded.project.id;
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), records.length];
        let accepted = 0;
        let rejected = 0;
        const dropped: Record<string, number> = {};
        for (let i = 0; i + 1 < bounds.length; i++) {
          const slice = records.slice(bounds[i], bounds[i + 1]);
          if (slice.length === 0) continue;
          const body = slice.map((g) => g.record);
          const res = ndjson[i % ndjson.length]
            ? await postNdjson(
                app,
                projectId,
                seeded.ingestKey,
                body.map((r) => JSON.stringify(r)).join('\n'),
              )
            : await postRecords(app, projectId, seeded.ingestKey, body);
          assert.equal(res.statusCode, 202, res.body);
          const answer: IngestAnswer = res.json();
          // Which records of this request were rejected, by index.
          assert.deepEqual(
            answer.rejected.map((r) => r.index),
            slice.flatMap((g, index) => (g.expected.kind === 'rejected' ? [index] : [])),
          );
          accepted += answer.accepted;
          rejected += answer.rejected.length;
          for (const [reason, n] of Object.entries(answer.dropped))
            dropped[reason] = (dropped[reason] ?? 0) + n;
        }

        const expectedDropped: Record<string, number> = {};
        for (const { expected } of records) {
          if (expected.kind === 'dropped')
            expectedDropped[expected.reason] = (expectedDropped[expected.reason] ?? 0) + 1;
        }
        assert.equal(accepted, records.filter((g) => g.expected.kind === 'view').length);
        assert.equal(rejected, records.filter((g) => g.expected.kind === 'rejected').length);
        assert.deepEqual(dropped, expectedDropped);

        const everything = expectedViews(records, () => true);
        const all = await allViews(app, projectId, seeded.readKey);
        assert.deepEqual(all.totals, everything.totals);
        assert.deepEqual(all.views, everything.views);

        const window = expectedViews(records, (hour) => hour !== null && hour >= from && hour < to);
        const query = `&dateFrom=${new Date(from).toISOString()}&dateTo=${new Date(to).toISOString()}`;
        const ranged = await allViews(app, projectId, seeded.readKey, query);
        assert.deepEqual(ranged.totals, window.totals);
        assert.deepEqual(ranged.views, window.views);
      }),
      { numRuns: 30 },
    );
  });
});

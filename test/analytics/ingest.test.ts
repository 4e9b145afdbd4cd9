// POST /v1/analytics/{projectId}/events on both engines, through the real app and the real
// classification pipeline; what was counted is read back through the /views export.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { GroupCommitWriter } from '../../src/modules/analytics/ingest/group-commit.ts';
import { ingestBatch } from '../../src/modules/analytics/ingest/ingest-batch.ts';
import { ViewSums } from '../../src/modules/analytics/store/index.ts';
import { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  allViews,
  controllableDatabase,
  type IngestAnswer,
  ingestTestApp,
  postNdjson,
  postRecords,
  until,
  viewsReport,
} from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

type Seeded = Awaited<ReturnType<typeof seedProject>>;
const human = (path: string, extra: object = {}) => ({ path, userAgent: CHROME, ...extra });

await forEachBackend('ingest API', ({ backend, db }) => {
  let app: App;
  before(async () => {
    app = await ingestTestApp(db());
  });
  after(() => app.close());

  async function ingest(seeded: Seeded, records: unknown[], key = seeded.ingestKey): Promise<IngestAnswer> {
    const res = await postRecords(app, seeded.project.id, key, records);
    assert.equal(res.statusCode, 202, res.body);
    return res.json();
  }

  test('202 says what was accepted, dropped and rejected; the views are counted by class', async () => {
    const seeded = await seedProject(db());
    const answer = await ingest(seeded, [
      human('/guide'),
      { url: 'https://docs.example.com/guide/?utm=x', userAgent: CHROME },
      { path: '/guide', userAgent: GPTBOT, ip: '198.51.100.1' },
      { path: '/guide', userAgent: GOOGLEBOT },
      { path: '/api', userAgent: GPTBOT },
      human('/style.css'),
      { path: 42 },
    ]);
    assert.deepEqual(Object.keys(answer).sort(), ['accepted', 'dropped', 'rejected']);
    assert.equal(answer.accepted, 5);
    assert.deepEqual(answer.dropped, { asset: 1 });
    assert.deepEqual(
      answer.rejected.map((r) => [r.index, r.code]),
      [[6, 'invalid_field']],
    );
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    // The Googlebot view is stored as a bot: in neither human nor ai.
    assert.deepEqual(report.totals, { human: 2, ai: 2, total: 4 });
    assert.deepEqual(report.views, [
      { path: '/guide', human: 2, ai: 1, total: 3 },
      { path: '/api', human: 0, ai: 1, total: 1 },
    ]);
  });

  test('an empty batch is answered with nothing counted', async () => {
    const seeded = await seedProject(db());
    assert.deepEqual(await ingest(seeded, []), { accepted: 0, dropped: {}, rejected: [] });
  });

  test('each malformed record is rejected alone, with its index, a code and the field named', async () => {
    const seeded = await seedProject(db());
    const cases: { record: unknown; code: string; mentions: RegExp }[] = [
      { record: { userAgent: CHROME }, code: 'missing_path', mentions: /"url" or "path"/ },
      { record: { path: '   ', url: '' }, code: 'missing_path', mentions: /"url" or "path"/ },
      {
        record: { path: '/x', timestamp: 'yesterday' },
        code: 'invalid_timestamp',
        mentions: /"timestamp".*yesterday/,
      },
      {
        record: { path: '/x', timestamp: '2025-02-30T10:00:00Z' },
        code: 'invalid_timestamp',
        mentions: /February 2025 has 28 days/,
      },
      {
        record: { path: '/x', timestamp: 1767225600000 },
        code: 'invalid_field',
        mentions: /"timestamp" must be string/,
      },
      {
        record: { path: '/x', timestamp: '2999-01-01T00:00:00Z' },
        code: 'timestamp_in_future',
        mentions: /"timestamp".*5 minutes/,
      },
      { record: { path: 17 }, code: 'invalid_field', mentions: /"path" must be string; got 17/ },
      { record: { url: ['/x'] }, code: 'invalid_field', mentions: /"url" must be string; got an array/ },
      {
        record: { path: '/x', status: '200' },
        code: 'invalid_field',
        mentions: /"status" must be integer; got "200"/,
      },
      { record: { path: '/x', status: 200.5 }, code: 'invalid_field', mentions: /"status" must be integer/ },
      { record: { path: '/x', status: 999 }, code: 'invalid_field', mentions: /"status" must be <= 599/ },
      { record: { path: '/x', userAgent: 7 }, code: 'invalid_field', mentions: /"userAgent" must be string/ },
      { record: { path: '/x', ip: false }, code: 'invalid_field', mentions: /"ip" must be string/ },
      {
        record: { path: '/x', method: null },
        code: 'invalid_field',
        mentions: /"method" must be string; got null/,
      },
      { record: { path: '/x', accept: {} }, code: 'invalid_field', mentions: /"accept" must be string/ },
      { record: { path: '/x', referrer: 1 }, code: 'invalid_field', mentions: /"referrer" must be string/ },
      {
        record: { path: '/x', headers: 'signature: x' },
        code: 'invalid_field',
        mentions: /"headers" must be object/,
      },
      {
        record: { path: '/x', headers: { signature: 5 } },
        code: 'invalid_field',
        mentions: /"headers.signature" must be string/,
      },
      { record: { path: '/a\u0000b' }, code: 'invalid_field', mentions: /"path" must not contain the NUL/ },
      {
        record: { path: '/x', userAgent: 'a\u0000' },
        code: 'invalid_field',
        mentions: /"userAgent" must not contain the NUL/,
      },
      { record: null, code: 'invalid_record', mentions: /JSON object; got null/ },
      { record: '/guide', code: 'invalid_record', mentions: /JSON object; got "\/guide"/ },
      { record: 3, code: 'invalid_record', mentions: /JSON object; got 3/ },
      { record: [{ path: '/x' }], code: 'invalid_record', mentions: /JSON object; got an array/ },
    ];
    // Each bad record sits between two good ones: the good ones must all be counted.
    const records: unknown[] = [];
    for (const c of cases) records.push(human('/kept'), c.record);
    records.push(human('/kept'));
    const answer = await ingest(seeded, records);
    assert.equal(answer.accepted, cases.length + 1);
    assert.equal(answer.rejected.length, cases.length);
    cases.forEach((c, i) => {
      const rejection = answer.rejected[i]!;
      assert.equal(rejection.index, 2 * i + 1, `index of ${JSON.stringify(c.record)}`);
      assert.equal(rejection.code, c.code, `code for ${JSON.stringify(c.record)}: ${rejection.message}`);
      assert.match(rejection.message, c.mentions);
    });
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.totals, { human: cases.length + 1, ai: 0, total: cases.length + 1 });
  });

  test('unknown fields are ignored and a blank path does not hide the url', async () => {
    const seeded = await seedProject(db());
    const answer = await ingest(seeded, [
      { url: '/docs/start?x=1', path: '', userAgent: CHROME, country: 'NL', bytes: 1200 },
    ]);
    assert.deepEqual(answer, { accepted: 1, dropped: {}, rejected: [] });
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.views, [{ path: '/docs/start', human: 1, ai: 0, total: 1 }]);
  });

  test('fields named __proto__ and constructor are ignored in a JSON batch as in NDJSON', async () => {
    const seeded = await seedProject(db());
    // Written as text: JSON.stringify of an object literal would drop a __proto__ key.
    const body =
      `[{"path": "/a", "userAgent": ${JSON.stringify(CHROME)}, "__proto__": {"polluted": true}},` +
      ` {"path": "/a", "userAgent": ${JSON.stringify(CHROME)}, "constructor": {"prototype": {"polluted": true}}},` +
      ` {"path": "/b", "userAgent": ${JSON.stringify(CHROME)}, "\u005f_proto__": {"path": "/c"}}]`;
    const res = await app.inject({
      method: 'POST',
      url: `/v1/analytics/${seeded.project.id}/events`,
      headers: { ...bearer(seeded.ingestKey), 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { accepted: 3, dropped: {}, rejected: [] });
    assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'no prototype was changed');
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.views, [
      { path: '/a', human: 2, ai: 0, total: 2 },
      { path: '/b', human: 1, ai: 0, total: 1 },
    ]);
  });

  test('drops are counted per reason and nothing dropped is counted as a view', async () => {
    const seeded = await seedProject(db());
    const answer = await ingest(seeded, [
      human('/a', { method: 'POST' }),
      human('/a', { method: 'OPTIONS' }),
      human('/a', { status: 404 }),
      human('/a', { status: 301 }),
      human('/a', { status: 500 }),
      { url: 'ftp://docs.example.com/a', userAgent: CHROME },
      human(`/${'x'.repeat(2100)}`),
      human('/app.js'),
      human('/logo.png?v=2'),
      human('/a', { method: 'HEAD', status: 304 }),
      human('/a', { method: 'get', status: 200 }),
    ]);
    assert.equal(answer.accepted, 2);
    assert.deepEqual(answer.dropped, {
      method_not_counted: 2,
      status_not_counted: 3,
      path_invalid: 1,
      path_too_long: 1,
      asset: 2,
    });
    assert.deepEqual(answer.rejected, []);
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.views, [{ path: '/a', human: 2, ai: 0, total: 2 }]);
  });

  describe('timestamps', () => {
    const NOW = Date.parse('2026-03-10T14:20:00Z');
    let clocked: App;
    before(async () => {
      clocked = await ingestTestApp(db(), { now: () => NOW });
    });
    after(() => clocked.close());

    test('counted in their UTC hour; omitted means when the batch arrived; up to 5 minutes ahead is accepted', async () => {
      const seeded = await seedProject(db());
      const res = await postRecords(clocked, seeded.project.id, seeded.ingestKey, [
        human('/t', { timestamp: '2026-03-10T09:59:59.999Z' }),
        human('/t', { timestamp: '2026-03-10T12:00:00+02:00' }), // 10:00 UTC
        human('/t', { timestamp: '2026-03-10T10:30:00.123456789Z' }),
        human('/t'), // 14:20 UTC
        human('/t', { timestamp: '2026-03-10T14:25:00Z' }), // exactly 5 minutes ahead
        human('/t', { timestamp: '2026-03-10T14:25:00.001Z' }),
      ]);
      assert.equal(res.statusCode, 202, res.body);
      const answer: IngestAnswer = res.json();
      assert.equal(answer.accepted, 5);
      assert.deepEqual(
        answer.rejected.map((r) => [r.index, r.code]),
        [[5, 'timestamp_in_future']],
      );
      const count = async (range: string) =>
        (await viewsReport(clocked, seeded.project.id, seeded.readKey, range)).totals.human;
      assert.equal(await count('?dateFrom=2026-03-10T09:00:00Z&dateTo=2026-03-10T10:00:00Z'), 1);
      assert.equal(await count('?dateFrom=2026-03-10T10:00:00Z&dateTo=2026-03-10T11:00:00Z'), 2);
      assert.equal(await count('?dateFrom=2026-03-10T14:00:00Z&dateTo=2026-03-10T15:00:00Z'), 2);
      assert.equal(await count(''), 5);
    });
  });

  describe('NDJSON', () => {
    test('one record per line; blank lines and CRLF are fine; a malformed line is rejected alone', async () => {
      const seeded = await seedProject(db());
      const lines = [
        JSON.stringify(human('/n1')),
        '',
        '{"path": "/n2", "userAgent": "broken',
        `${JSON.stringify(human('/n3'))}\r`,
        '   ',
        '[1, 2]',
        JSON.stringify({ path: '/n4', userAgent: GPTBOT }),
        '',
      ];
      const res = await postNdjson(app, seeded.project.id, seeded.ingestKey, lines.join('\n'));
      assert.equal(res.statusCode, 202, res.body);
      const answer: IngestAnswer = res.json();
      assert.equal(answer.accepted, 3);
      assert.deepEqual(
        answer.rejected.map((r) => [r.index, r.code]),
        [
          [1, 'invalid_json'],
          [3, 'invalid_record'],
        ],
      );
      assert.match(answer.rejected[0]!.message, /^Line 3 is not valid JSON/);
      const report = await viewsReport(app, seeded.project.id, seeded.readKey);
      assert.deepEqual(report.totals, { human: 2, ai: 1, total: 3 });
    });

    test('Content-Type with parameters is accepted', async () => {
      const seeded = await seedProject(db());
      const res = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${seeded.project.id}/events`,
        headers: { ...bearer(seeded.ingestKey), 'content-type': 'application/x-ndjson; charset=utf-8' },
        payload: `${JSON.stringify(human('/p'))}\n`,
      });
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().accepted, 1);
    });
  });

  describe('limits', () => {
    test('1,000 records are taken; 1,001 are refused whole with 413 too_many_records (JSON and NDJSON)', async () => {
      const seeded = await seedProject(db());
      const records = (n: number) => Array.from({ length: n }, (_, i) => human(`/l${i % 7}`));
      const ok = await postRecords(app, seeded.project.id, seeded.ingestKey, records(1000));
      assert.equal(ok.statusCode, 202, ok.body);
      assert.equal(ok.json().accepted, 1000);

      const json = await postRecords(app, seeded.project.id, seeded.ingestKey, records(1001));
      assert.equal(json.statusCode, 413);
      assert.equal(json.json().code, 'too_many_records');
      assert.match(json.json().error, /at most 1000 records; this one has 1001/);

      const ndjson = await postNdjson(
        app,
        seeded.project.id,
        seeded.ingestKey,
        records(1001)
          .map((r) => JSON.stringify(r))
          .join('\n'),
      );
      assert.equal(ndjson.statusCode, 413);
      assert.equal(ndjson.json().code, 'too_many_records');

      const report = await viewsReport(app, seeded.project.id, seeded.readKey);
      assert.equal(report.totals.total, 1000, 'the refused batches counted nothing');
    });

    test('a large body (read in pieces, body-pieces.ts) means what its whole text says', async () => {
      const seeded = await seedProject(db());
      // About 280 KB: several pieces. A path holding `},{` and a malformed record sit among them.
      const records: unknown[] = Array.from({ length: 800 }, (_, i) =>
        human(`/docs/${'p'.repeat(200)}/${i}`),
      );
      records[300] = human('/odd/},{"path":"/x"},{');
      records[500] = { path: '/no-agent', userAgent: 42 };
      const json = await postRecords(app, seeded.project.id, seeded.ingestKey, records);
      assert.equal(json.statusCode, 202, json.body);
      assert.equal(json.json().accepted, 799);
      assert.deepEqual(
        json.json().rejected.map((r: { index: number }) => r.index),
        [500],
      );
      const ndjson = await postNdjson(
        app,
        seeded.project.id,
        seeded.ingestKey,
        records.map((r) => JSON.stringify(r)).join('\r\n'),
      );
      assert.equal(ndjson.statusCode, 202, ndjson.body);
      assert.equal(ndjson.json().accepted, 799);
      const report = await allViews(app, seeded.project.id, seeded.readKey);
      assert.equal(report.totals.human, 2 * 799);
      assert.ok(report.views.some((v) => v.path === '/odd/},{"path":"/x"},{' && v.human === 2));

      // Broken past its first piece: refused whole, as a small broken body is.
      const text = JSON.stringify(records);
      const quote = text.indexOf('"', 150_000);
      const broken = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${seeded.project.id}/events`,
        headers: { ...bearer(seeded.ingestKey), 'content-type': 'application/json' },
        payload: `${text.slice(0, quote)}${text.slice(quote + 1)}`,
      });
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.json().code, 'invalid_json');
      // Nested too deep in a record past the first piece: refused whole, as a small body is.
      const deep = [...records];
      deep[600] = { ...human('/deep'), extra: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) };
      const tooDeep = await postRecords(app, seeded.project.id, seeded.ingestKey, deep);
      assert.equal(tooDeep.statusCode, 400);
      assert.equal(tooDeep.json().code, 'json_too_deep');
      assert.equal((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.total, 2 * 799);
    });

    test('a body over 1 MiB is refused with 413 body_too_large (JSON and NDJSON)', async () => {
      const seeded = await seedProject(db());
      const big = Array.from({ length: 600 }, (_, i) => human(`/${'b'.repeat(1700)}${i}`));
      const json = await postRecords(app, seeded.project.id, seeded.ingestKey, big);
      assert.equal(json.statusCode, 413);
      assert.equal(json.json().code, 'body_too_large');
      const ndjson = await postNdjson(
        app,
        seeded.project.id,
        seeded.ingestKey,
        big.map((r) => JSON.stringify(r)).join('\n'),
      );
      assert.equal(ndjson.statusCode, 413);
      assert.equal(ndjson.json().code, 'body_too_large');
      assert.equal((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.total, 0);
    });

    test('a body that is not an array is 400; an empty one is 400; other media types are 415', async () => {
      const seeded = await seedProject(db());
      const url = `/v1/analytics/${seeded.project.id}/events`;
      const headers = bearer(seeded.ingestKey);
      const object = await app.inject({ method: 'POST', url, headers, payload: human('/x') });
      assert.equal(object.statusCode, 400);
      assert.equal(object.json().code, 'invalid_body');
      assert.match(object.json().error, /JSON array of records/);

      const empty = await app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(empty.statusCode, 400);
      assert.equal(empty.json().code, 'invalid_json');

      const broken = await app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '[{"path": "/x"',
      });
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.json().code, 'invalid_json');

      const text = await app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'text/plain' },
        payload: '/x',
      });
      assert.equal(text.statusCode, 415);
      assert.equal(text.json().code, 'unsupported_media_type');
      assert.match(text.json().error, /application\/json .* application\/x-ndjson/);
    });
  });

  describe('keys', () => {
    test('ingest and admin keys may ingest; read keys, no key and other projects’ keys may not', async () => {
      const seeded = await seedProject(db());
      const other = await seedProject(db());
      const send = (key: string | null) =>
        app.inject({
          method: 'POST',
          url: `/v1/analytics/${seeded.project.id}/events`,
          headers: key === null ? {} : bearer(key),
          payload: [human('/k')],
        });
      assert.equal((await send(seeded.ingestKey)).statusCode, 202);
      assert.equal((await send(seeded.adminKey)).statusCode, 202);
      const read = await send(seeded.readKey);
      assert.equal(read.statusCode, 403);
      assert.equal(read.json().code, 'insufficient_scope');
      assert.equal((await send(null)).statusCode, 401);
      const foreign = await send(other.ingestKey);
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.json().code, 'project_forbidden');
      // The ingest key cannot read what it wrote.
      const export_ = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/views`,
        headers: bearer(seeded.ingestKey),
      });
      assert.equal(export_.statusCode, 403);
      assert.equal((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.total, 2);
    });
  });

  describe('group commit', () => {
    test('requests arriving while a commit runs are written together in the next transaction', async () => {
      const control = controllableDatabase(db());
      const writer = new GroupCommitWriter(control.db, { windowMs: 1, maxConcurrentCommits: 1 });
      const grouped = await ingestTestApp(control.db, { writer });
      try {
        const seeded = await seedProject(db());
        const release = control.hold();
        const first = postRecords(grouped, seeded.project.id, seeded.ingestKey, [human('/g0')]);
        await until(() => control.waitingAtGate() === 1, 'the first commit to be held');
        const rest = Array.from({ length: 9 }, (_, i) =>
          postRecords(grouped, seeded.project.id, seeded.ingestKey, [human(`/g${i + 1}`), human('/g')]),
        );
        await until(() => writer.stats.waitingRequests === 9, 'nine requests to wait for the next group');
        release();
        const answers = await Promise.all([first, ...rest]);
        for (const answer of answers) assert.equal(answer.statusCode, 202, answer.body);
        assert.equal(writer.stats.commits, 2, 'ten requests, two transactions');
        assert.equal(writer.stats.committedRequests, 10);
        assert.equal(writer.stats.committedViews, 19);
        const report = await viewsReport(grouped, seeded.project.id, seeded.readKey);
        assert.equal(report.totals.human, 19);
        assert.deepEqual(report.views[0], { path: '/g', human: 9, ai: 0, total: 9 });
      } finally {
        control.releaseAll();
        await grouped.close();
      }
    });

    test('up to maxConcurrentCommits groups commit at once on PostgreSQL; one at a time on PGlite', async () => {
      const control = controllableDatabase(db());
      const writer = new GroupCommitWriter(control.db, { windowMs: 1, maxConcurrentCommits: 2 });
      const grouped = await ingestTestApp(control.db, { writer });
      try {
        const seeded = await seedProject(db());
        const slots = backend === 'postgres' ? 2 : 1;
        const release = control.hold();
        const send = (path: string) =>
          postRecords(grouped, seeded.project.id, seeded.ingestKey, [human(path)]);
        const answers = [send('/s0')];
        await until(() => control.waitingAtGate() === 1, 'the first commit to be held');
        answers.push(send('/s1'));
        // On PostgreSQL the second request gets a commit of its own; on PGlite it waits.
        await until(
          () => control.waitingAtGate() === slots && writer.stats.waitingRequests === 2 - slots,
          `${slots} group(s) being committed`,
        );
        for (let i = 2; i < 6; i++) answers.push(send(`/s${i}`));
        await until(() => writer.stats.waitingRequests === 6 - slots, 'the others to wait');
        release();
        for (const answer of await Promise.all(answers)) assert.equal(answer.statusCode, 202, answer.body);
        assert.equal(writer.stats.commits, slots + 1);
        assert.equal((await viewsReport(grouped, seeded.project.id, seeded.readKey)).totals.human, 6);
      } finally {
        control.releaseAll();
        await grouped.close();
      }
    });

    test('a group is written as soon as maxGroupViews views wait, without waiting for the window', async () => {
      const writer = new GroupCommitWriter(db(), { windowMs: 600_000, maxGroupViews: 30 });
      const grouped = await ingestTestApp(db(), { writer });
      try {
        const seeded = await seedProject(db());
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            postRecords(grouped, seeded.project.id, seeded.ingestKey, [
              human(`/w${i}`),
              human('/w'),
              human('/w'),
            ]),
          ),
        );
        for (const answer of answers) assert.equal(answer.statusCode, 202, answer.body);
        assert.equal(writer.stats.commits, 1, 'ten requests of three views each, one transaction');
        assert.equal((await viewsReport(grouped, seeded.project.id, seeded.readKey)).totals.human, 30);
      } finally {
        await grouped.close();
      }
    });

    test('a failed commit answers 503 with Retry-After to every request of its group and counts nothing', async () => {
      const control = controllableDatabase(db());
      const writer = new GroupCommitWriter(control.db, { windowMs: 600_000, maxGroupViews: 4 });
      const grouped = await ingestTestApp(control.db, { writer });
      try {
        const seeded = await seedProject(db());
        const batchA = [human('/f'), human('/fa')];
        const batchB = [human('/f'), { path: '/fb', userAgent: GPTBOT }];
        control.failNextCommit();
        const failed = await Promise.all([
          postRecords(grouped, seeded.project.id, seeded.ingestKey, batchA),
          postRecords(grouped, seeded.project.id, seeded.ingestKey, batchB),
        ]);
        for (const res of failed) {
          assert.equal(res.statusCode, 503, res.body);
          assert.equal(res.json().code, 'ingest_unavailable');
          assert.equal(res.headers['retry-after'], '1');
          assert.match(res.json().error, /nothing of this batch was counted/);
        }
        assert.equal(writer.stats.failedCommits, 1);
        assert.equal(writer.stats.commits, 0);
        assert.equal((await viewsReport(grouped, seeded.project.id, seeded.readKey)).totals.total, 0);

        // The clients retry: counted once.
        const retried = await Promise.all([
          postRecords(grouped, seeded.project.id, seeded.ingestKey, batchA),
          postRecords(grouped, seeded.project.id, seeded.ingestKey, batchB),
        ]);
        for (const res of retried) assert.equal(res.statusCode, 202, res.body);
        const report = await viewsReport(grouped, seeded.project.id, seeded.readKey);
        assert.deepEqual(report.totals, { human: 3, ai: 1, total: 4 });
      } finally {
        control.releaseAll();
        await grouped.close();
      }
    });

    test('a batch that throws midway counts nothing; the rest of its group is counted as acknowledged', async () => {
      // Whatever way a batch's views reach its group (a tally of its own, or summed into the
      // group as they are read), a batch that fails after some of its views were summed must
      // leave none of them: what is stored equals what was acknowledged with 202.
      const writer = new GroupCommitWriter(db(), { windowMs: 200 });
      const grouped = await ingestTestApp(db(), { writer });
      try {
        const seeded = await seedProject(db());
        const broken = '192.0.2.99';
        // The real hasher, failing at one address: the third record of the batch below.
        class FailingHasher extends VisitorHasher {
          override addressNumber(ip: string): number {
            if (ip === broken) throw new Error('the hasher failed');
            return super.addressNumber(ip);
          }
        }
        const hasher = new FailingHasher(new Uint8Array(32).fill(7));
        const deps = {
          writer,
          classification: createClassificationContext(),
          now: Date.now,
          visitorSalts: { hasherAt: async () => hasher },
        };
        const first = postRecords(grouped, seeded.project.id, seeded.ingestKey, [human('/t1'), human('/t1')]);
        await until(() => writer.stats.waitingRequests === 1, 'the first request to wait for its group');
        const failing = ingestBatch(
          seeded.project.id,
          ['192.0.2.1', '192.0.2.2', broken, '192.0.2.3'].map((ip) => human('/tx', { ip })),
          deps,
        );
        await assert.rejects(failing, /the hasher failed/);
        const second = postRecords(grouped, seeded.project.id, seeded.ingestKey, [human('/t2')]);
        const answers = await Promise.all([first, second]);
        let acknowledged = 0;
        for (const answer of answers) {
          assert.equal(answer.statusCode, 202, answer.body);
          acknowledged += answer.json().accepted;
        }
        assert.equal(acknowledged, 3);
        assert.equal(writer.stats.committedViews, acknowledged);
        const report = await viewsReport(grouped, seeded.project.id, seeded.readKey);
        assert.equal(report.totals.total, acknowledged);
        assert.deepEqual(
          report.views.map((v) => [v.path, v.total]),
          [
            ['/t1', 2],
            ['/t2', 1],
          ],
        );
      } finally {
        await grouped.close();
      }
    });

    test('beyond maxPendingViews a request is refused at once with 503 and Retry-After', async () => {
      const control = controllableDatabase(db());
      const writer = new GroupCommitWriter(control.db, {
        windowMs: 1,
        maxPendingViews: 10,
        retryAfterSeconds: 2,
      });
      const grouped = await ingestTestApp(control.db, { writer });
      try {
        const seeded = await seedProject(db());
        const five = (tag: string) => Array.from({ length: 5 }, () => human(`/${tag}`));
        const release = control.hold();
        const committing = postRecords(grouped, seeded.project.id, seeded.ingestKey, five('o1'));
        await until(() => control.waitingAtGate() === 1, 'the first commit to be held');
        const waiting = postRecords(grouped, seeded.project.id, seeded.ingestKey, five('o2'));
        await until(() => writer.stats.waitingRequests === 1, 'the second request to wait');
        assert.equal(writer.stats.pendingViews, 10);

        const refused = await postRecords(grouped, seeded.project.id, seeded.ingestKey, five('o3'));
        assert.equal(refused.statusCode, 503, refused.body);
        assert.equal(refused.json().code, 'ingest_overloaded');
        assert.equal(refused.headers['retry-after'], '2');
        assert.equal(writer.stats.overloadRefusals, 1);
        // A batch whose records are all dropped adds nothing to wait for, so it is still taken.
        const dropsOnly = await postRecords(grouped, seeded.project.id, seeded.ingestKey, [human('/x.css')]);
        assert.equal(dropsOnly.statusCode, 202, dropsOnly.body);

        release();
        assert.equal((await committing).statusCode, 202);
        assert.equal((await waiting).statusCode, 202);
        const report = await viewsReport(grouped, seeded.project.id, seeded.readKey);
        assert.deepEqual(
          report.views.map((v) => [v.path, v.total]),
          [
            ['/o1', 5],
            ['/o2', 5],
          ],
        );
        // Once the queue drained, the refused batch is taken.
        const again = await postRecords(grouped, seeded.project.id, seeded.ingestKey, five('o3'));
        assert.equal(again.statusCode, 202, again.body);
      } finally {
        control.releaseAll();
        await grouped.close();
      }
    });

    test('closing the app commits the views still waiting; a closed writer refuses with 503', async () => {
      const writer = new GroupCommitWriter(db(), { windowMs: 600_000 });
      const closing = await ingestTestApp(db(), { writer });
      const seeded = await seedProject(db());
      const pending = postRecords(closing, seeded.project.id, seeded.ingestKey, [human('/c'), human('/c')]);
      await until(() => writer.stats.waitingRequests === 1, 'the request to wait for its group');
      await closing.close();
      const res = await pending;
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(writer.stats.commits, 1);
      assert.equal((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.human, 2);

      const refusal = await writer
        .submit(
          ViewSums.ofRows([
            {
              projectId: seeded.project.id,
              hour: new Date(),
              path: '/late',
              trafficClass: 'human',
              views: 1,
            },
          ]),
        )
        .then(
          () => null,
          (error: { code: string; status: number; headers: Record<string, string> }) => error,
        );
      assert.ok(refusal);
      assert.equal(refusal.code, 'ingest_unavailable');
      assert.equal(refusal.status, 503);
      assert.equal(refusal.headers['retry-after'], '1');
    });
  });

  test('the OpenAPI document describes the record, both body types and the answer', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/v1/analytics/{projectId}/events'].post;
    assert.deepEqual(Object.keys(operation.requestBody.content).sort(), [
      'application/json',
      'application/x-ndjson',
    ]);
    assert.equal(operation.requestBody.content['application/json'].schema.maxItems, 1000);
    assert.ok(operation.responses['202']);
    assert.ok(operation.responses['503']);
    const record = doc.components.schemas.IngestRecord;
    assert.deepEqual(Object.keys(record.properties).sort(), [
      'accept',
      'clientName',
      'clientVersion',
      'format',
      'headers',
      'ip',
      'method',
      'path',
      'referrer',
      'status',
      'timestamp',
      'tool',
      'type',
      'url',
      'userAgent',
    ]);
    for (const [name, property] of Object.entries<{ description?: string }>(record.properties)) {
      assert.ok((property.description ?? '').length > 10, `${name} is described`);
    }
    assert.deepEqual(Object.keys(doc.components.schemas.IngestResult.properties).sort(), [
      'accepted',
      'dropped',
      'rejected',
    ]);
  });
});

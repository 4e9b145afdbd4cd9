// Text the database cannot store and JSON too deep to handle are the client's mistake: a NUL
// (%00 in a path or query parameter, \u0000 in a JSON string, %00 in a form field) and JSON nested
// more than 64 levels answer 400 with a documented code on every route, instead of a 500 from
// PostgreSQL ("invalid byte sequence for encoding UTF8: 0x00") or from a stack overflow in
// JSON.stringify whose body quoted Fastify's internals.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { MAX_JSON_DEPTH } from '../../src/util/json-depth.ts';
import { createDashboardApp, PUBLIC_URL } from '../dashboard/helpers.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const ORIGIN = 'https://docs.example.com';

/** `levels` arrays inside each other around `inner`. */
const nested = (levels: number, inner = '"x"') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

interface Answer {
  statusCode: number;
  body: string;
  json(): Record<string, unknown>;
}

function assertRefused(res: Answer, code: string, label: string): void {
  assert.equal(res.statusCode, 400, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const body = res.json();
  assert.equal(body.code, code, label);
  assert.deepEqual(
    Object.keys(body).filter((k) => !['error', 'code', 'requestId', 'details'].includes(k)),
    [],
    label,
  );
  assert.match(String(body.requestId), /^req_[0-9a-f]{32}$/, label);
  assert.doesNotMatch(res.body, /FST_|stack|invalid byte sequence/i, label);
}

await forEachBackend('NUL characters and deep JSON', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let jobId: string;
  before(async () => {
    ({ app } = await createDashboardApp(db()));
    seeded = await seedProject(db(), { settings: { allowedOrigins: [ORIGIN] } });
    const created = await app.inject({
      method: 'POST',
      url: `/v2/agent/${seeded.project.id}/job`,
      headers: bearer(seeded.adminKey),
      payload: { prompt: 'Fix the typos' },
    });
    assert.equal(created.statusCode, 201, created.body);
    jobId = created.json().id;
  });
  after(() => app.close());

  const admin = () => bearer(seeded.adminKey);
  const json = { 'content-type': 'application/json' };

  test('a NUL in any path or query parameter answers 400 nul_character, naming it', async () => {
    const p = seeded.project.id;
    const cases: [method: 'GET' | 'POST' | 'OPTIONS', url: string, name: string][] = [
      ['GET', `/v2/agent/${p}/job/job_%00`, 'id'],
      ['GET', `/v2/agent/prj_%00/job/${jobId}`, 'projectId'],
      ['GET', `/v2/agent/${p}/jobs?cursor=%00`, 'cursor'],
      ['GET', `/v2/agent/${p}/jobs?status=completed&cursor=a%00b`, 'cursor'],
      ['POST', `/v2/agent/${p}/job/job_%00/message`, 'id'],
      ['POST', `/v2/agent/${p}/job/job_%00/cancel`, 'id'],
      ['POST', `/v2/agent/${p}/job/job_%00/archive`, 'id'],
      ['GET', `/v2/agent/${p}/job/job_%00/events`, 'id'],
      ['GET', `/v2/agent/${p}/job/job_%00/diff`, 'id'],
      ['GET', `/v1/analytics/${p}/views?dateFrom=2026-01-01%00`, 'dateFrom'],
      ['GET', `/v1/analytics/${p}/agents?dateTo=%00`, 'dateTo'],
      ['GET', `/v1/analytics/${p}/timeseries?dateFrom=%00`, 'dateFrom'],
      ['POST', `/v1/analytics/prj_%00/events`, 'projectId'],
      // The browser script's route takes no key: the project is looked up from the path.
      ['POST', `/v1/analytics/prj_%00/collect`, 'projectId'],
      ['OPTIONS', `/v1/analytics/prj_%00/collect`, 'projectId'],
    ];
    for (const [method, url, name] of cases) {
      const res = await app.inject({
        method,
        url,
        headers: { ...admin(), ...json, origin: ORIGIN },
        ...(method === 'POST'
          ? { payload: url.endsWith('/events') ? '[]' : '{"prompt":"x","path":"/"}' }
          : {}),
      });
      assertRefused(res, 'nul_character', `${method} ${url}`);
      assert.equal((res.json().details as { name?: string }[])[0]!.name, name, url);
    }
    // The dashboard answers with its own page, but the same status, before its session lookup.
    const page = await app.inject({ method: 'GET', url: '/app/projects/prj_%00/keys' });
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /NUL character/);
  });

  test('a list cursor that decodes to a NUL is refused as an unknown cursor', async () => {
    const cursor = Buffer.from(JSON.stringify({ after: 'job_\u0000' })).toString('base64url');
    const res = await app.inject({
      method: 'GET',
      url: `/v2/agent/${seeded.project.id}/jobs?cursor=${cursor}`,
      headers: admin(),
    });
    assertRefused(res, 'invalid_parameter', 'cursor');
  });

  test('a NUL in a JSON string answers 400 nul_character on every JSON body', async () => {
    const p = seeded.project.id;
    const nul = '"a\\u0000b"';
    const cases: [url: string, type: string, payload: string][] = [
      [`/v2/agent/${p}/job`, 'application/json', `{"prompt": ${nul}}`],
      [`/v2/agent/${p}/job/${jobId}/message`, 'application/json', `{"prompt": ${nul}}`],
      [`/v2/agent/${p}/job`, 'application/json', `{"prompt": "ok", ${nul}: 1}`],
      [`/v1/analytics/${p}/collect`, 'text/plain', `{"path": ${nul}}`],
      [`/v1/analytics/${p}/collect`, 'application/json', `{"path": "/a", "referrer": ${nul}}`],
    ];
    for (const [url, type, payload] of cases) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { ...admin(), 'content-type': type, origin: ORIGIN },
        payload,
      });
      assertRefused(res, 'nul_character', `${url} ${type} ${payload}`);
    }
    // An escaped backslash followed by "u0000" is six ordinary characters, not a NUL.
    const literal = await app.inject({
      method: 'POST',
      url: `/v2/agent/${p}/job`,
      headers: { ...admin(), ...json },
      payload: '{"prompt": "write \\\\u0000 in the docs"}',
    });
    assert.equal(literal.statusCode, 201, literal.body);
    assert.equal(literal.json().prompt, 'write \\u0000 in the docs');
  });

  test('in an ingest batch, a record holding a NUL anywhere is rejected alone', async () => {
    const p = seeded.project.id;
    const good = '{"path": "/a", "userAgent": "Mozilla/5.0"}';
    const bad = [
      '{"path": "/a\\u0000"}',
      '{"path": "/a", "referrer": "x\\u0000"}',
      '{"path": "/a", "headers": {"signature-agent": "\\u0000"}}',
      '{"path": "/a", "headers": {"x\\u0000": "y"}}',
    ];
    for (const [type, payload] of [
      ['application/json', `[${good}, ${bad.join(', ')}]`],
      ['application/x-ndjson', `${good}\n${bad.join('\n')}\n`],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${p}/events`,
        headers: { ...bearer(seeded.ingestKey), 'content-type': type },
        payload,
      });
      assert.equal(res.statusCode, 202, `${type}: ${res.body.slice(0, 300)}`);
      const rejected = res.json().rejected as { index: number; code: string }[];
      assert.deepEqual(
        rejected.map((r) => [r.index, r.code]),
        [
          [1, 'invalid_field'],
          [2, 'invalid_field'],
          [3, 'invalid_field'],
          [4, 'invalid_field'],
        ],
        type,
      );
    }
  });

  test('a NUL in a dashboard form field answers 400, before any account lookup', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/app/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL },
      payload: 'email=a%00b%40example.com&password=x',
    });
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.doesNotMatch(res.body, /invalid byte sequence|FST_/);
  });

  test(`JSON nested more than ${MAX_JSON_DEPTH} levels answers 400 json_too_deep at parse time`, async () => {
    const p = seeded.project.id;
    const deep = nested(10_000);
    const cases: [url: string, type: string, payload: string, headers?: Record<string, string>][] = [
      [`/v2/agent/${p}/job`, 'application/json', `{"prompt": ${deep}}`],
      [`/v2/agent/${p}/job`, 'application/json', `{"prompt": ${deep}}`, { 'idempotency-key': 'deep-1' }],
      [`/v2/agent/${p}/job/${jobId}/message`, 'application/json', `{"prompt": ${deep}}`],
      [`/v1/analytics/${p}/events`, 'application/json', `[{"path": "/a", "headers": ${deep}}]`],
      [`/v1/analytics/${p}/events`, 'application/json', deep, { 'idempotency-key': 'deep-2' }],
      // (The browser script's bodies are at most 8 KiB.)
      [`/v1/analytics/${p}/collect`, 'text/plain', `{"path": ${nested(3000)}}`],
      // The limit itself: 64 levels parse (and fail the schema), 65 do not.
      [`/v2/agent/${p}/job`, 'application/json', `{"prompt": ${nested(MAX_JSON_DEPTH)}}`],
    ];
    for (const [url, type, payload, headers] of cases) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { ...admin(), 'content-type': type, origin: ORIGIN, ...headers },
        payload,
      });
      assertRefused(res, 'json_too_deep', `${url} ${payload.slice(0, 40)}`);
    }
    const atLimit = await app.inject({
      method: 'POST',
      url: `/v2/agent/${p}/job`,
      headers: { ...admin(), ...json },
      payload: `{"prompt": ${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    assertRefused(atLimit, 'invalid_body', 'at the limit');
    assert.match(String(atLimit.json().error), /got an array/);
  });

  test('an NDJSON line nested too deep is rejected alone; the other lines count', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/v1/analytics/${seeded.project.id}/events`,
      headers: { ...bearer(seeded.ingestKey), 'content-type': 'application/x-ndjson' },
      payload: `{"path": "/a", "userAgent": "Mozilla/5.0"}\n${nested(10_000, '{}')}\n`,
    });
    assert.equal(res.statusCode, 202, res.body.slice(0, 300));
    const rejected = res.json().rejected as { index: number; code: string; message: string }[];
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.index, 1);
    assert.equal(rejected[0]!.code, 'invalid_json');
    assert.match(rejected[0]!.message, /nested more than 64 levels/);
  });
});

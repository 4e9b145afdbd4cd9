// The auth matrix over every /v1 and /v2 route the OpenAPI document lists, so a route added
// later is covered without touching this file.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { crc32 } from 'node:zlib';
import type { App } from '../../src/http/context.ts';
import { generateApiKey, KEY_PREFIX, LOOKUP_LENGTH, parseApiKey } from '../../src/modules/keys/key-format.ts';
import { checkKey, createKey, revokeKey } from '../../src/modules/keys/service.ts';
import { randomBase62, toBase62 } from '../../src/util/random.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

interface Route {
  method: 'GET' | 'POST';
  path: string;
}

function apiRoutes(app: App): Route[] {
  const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!/^\/v[12]\//.test(path)) continue;
    for (const [method, op] of Object.entries(ops)) {
      // Routes documented with no security take no key by design (the browser script's
      // endpoint, which checks origins instead: test/analytics/collect.test.ts; the code hosts'
      // webhooks, which check signatures), and an automation's trigger URL takes its own secret
      // (test/automations/automations.test.ts): only routes taking an API key are checked here.
      const security = (op as { security?: Record<string, unknown>[] }).security;
      if (Array.isArray(security) && !security.some((scheme) => 'bearerAuth' in scheme)) continue;
      routes.push({ method: method.toUpperCase() as Route['method'], path });
    }
  }
  return routes;
}

const urlFor = (route: Route, projectId: string) =>
  route.path.replace('{projectId}', projectId).replace('{id}', 'job_0000000000000000');

await forEachBackend('authentication and authorisation', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let other: Awaited<ReturnType<typeof seedProject>>;
  let revoked: string;
  let expired: string;
  let routes: Route[];

  before(async () => {
    app = await createTestApp(db());
    seeded = await seedProject(db());
    other = await seedProject(db());
    const r = await createKey(db(), { projectId: seeded.project.id, name: 'to revoke' });
    await revokeKey(db(), r.id);
    revoked = r.key;
    const e = await createKey(db(), {
      projectId: seeded.project.id,
      name: 'to expire',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await db().query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [e.id]);
    expired = e.key;
    routes = apiRoutes(app);
  });
  after(() => app.close());

  const call = (route: Route, headers: Record<string, string>, projectId = seeded.project.id) =>
    app.inject({
      method: route.method,
      url: urlFor(route, projectId),
      headers: { ...headers, ...(route.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      payload: route.method === 'POST' ? JSON.stringify({ prompt: 'x' }) : undefined,
    });

  test('the OpenAPI document lists the contract routes', () => {
    const listed = routes.map((r) => `${r.method} ${r.path}`);
    assert.ok(listed.includes('POST /v2/agent/{projectId}/job'));
    assert.ok(listed.includes('GET /v2/agent/{projectId}/job/{id}'));
    assert.ok(listed.includes('GET /v1/analytics/{projectId}/views'));
  });

  test('no Authorization header → 401 missing_api_key with WWW-Authenticate', async () => {
    for (const route of routes) {
      const res = await call(route, {});
      assert.equal(res.statusCode, 401, `${route.method} ${route.path}`);
      assert.equal(res.json().code, 'missing_api_key');
      assert.match(res.headers['www-authenticate'] as string, /^Bearer/);
    }
  });

  test('malformed Authorization → 401 missing_api_key', async () => {
    const good = generateApiKey().key;
    const badChecksum = `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`;
    const cases = ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer not-a-key', `Bearer ${badChecksum}`, good];
    for (const route of routes) {
      for (const authorization of cases) {
        const res = await call(route, { authorization });
        assert.equal(res.statusCode, 401, `${route.method} ${route.path} with ${authorization}`);
        assert.equal(res.json().code, 'missing_api_key');
        assert.match(res.headers['www-authenticate'] as string, /^Bearer/);
      }
    }
  });

  test('unknown, revoked and expired keys → 401 invalid_api_key', async () => {
    const unknown = generateApiKey().key;
    for (const route of routes) {
      for (const [key, why] of [
        [unknown, 'is not known'],
        [revoked, 'has been revoked'],
        [expired, 'has expired'],
      ] as const) {
        const res = await call(route, bearer(key));
        assert.equal(res.statusCode, 401, `${route.method} ${route.path}`);
        assert.equal(res.json().code, 'invalid_api_key');
        assert.equal(res.json().error, `The API key ${why}.`);
        assert.ok(!res.body.includes(key), 'the key is not echoed');
      }
    }
  });

  test("another project's key → 403, the same whether or not the project exists", async () => {
    for (const route of routes) {
      const existing = await call(route, bearer(other.adminKey));
      const missing = await call(route, bearer(other.adminKey), 'prj_doesnotexist0000');
      assert.equal(existing.statusCode, 403, `${route.method} ${route.path}`);
      assert.equal(missing.statusCode, 403);
      assert.equal(existing.json().code, 'project_forbidden');
      const strip = (body: { error: string; code: string }) => ({
        code: body.code,
        error: body.error.replace(/"prj_[^"]+"/, '"X"'),
      });
      assert.deepEqual(strip(existing.json()), strip(missing.json()));
    }
  });

  test('scopes: read keys only GET, ingest keys no job or export routes', async () => {
    for (const route of routes) {
      const read = await call(route, bearer(seeded.readKey));
      const ingest = await call(route, bearer(seeded.ingestKey));
      const isIngestRoute = /\/(events|collect)$/.test(route.path);
      if (route.method === 'GET') {
        assert.ok(![401, 403].includes(read.statusCode), `read key on ${route.path}: ${read.statusCode}`);
      } else {
        assert.equal(read.statusCode, 403, `read key on POST ${route.path}`);
        assert.equal(read.json().code, 'insufficient_scope');
      }
      if (!isIngestRoute) {
        assert.equal(ingest.statusCode, 403, `ingest key on ${route.method} ${route.path}`);
        assert.equal(ingest.json().code, 'insufficient_scope');
      }
    }
  });

  test('a valid admin key passes authentication everywhere and records last use', async () => {
    for (const route of routes) {
      const res = await call(route, bearer(seeded.adminKey));
      assert.ok(
        ![401, 403].includes(res.statusCode),
        `${route.method} ${route.path}: ${res.statusCode} ${res.body}`,
      );
    }
    const rows = await db().query<{ last_used_at: Date | null }>(
      "SELECT last_used_at FROM api_keys WHERE project_id = $1 AND scope = 'admin'",
      [seeded.project.id],
    );
    assert.ok(rows[0]?.last_used_at instanceof Date);
  });

  test('last use is written at most once a minute, and a use within the minute costs no write', async () => {
    const k = await createKey(db(), { projectId: seeded.project.id });
    const statements: string[] = [];
    const counting = {
      query: <Row>(sql: string, params?: readonly unknown[]) => {
        statements.push(sql.trim().split(/\s+/)[0]!.toUpperCase());
        return db().query<Row>(sql, params);
      },
      exec: (sql: string) => db().exec(sql),
    };
    const lastUsed = async () =>
      (
        await db().query<{ last_used_at: Date | null }>('SELECT last_used_at FROM api_keys WHERE id = $1', [
          k.id,
        ])
      )[0]!.last_used_at;
    assert.equal((await checkKey(counting, k.key)).ok, true);
    assert.deepEqual(statements, ['SELECT', 'UPDATE'], 'the first use is recorded');
    const first = await lastUsed();
    assert.ok(first instanceof Date);

    statements.length = 0;
    assert.equal((await checkKey(counting, k.key)).ok, true);
    assert.deepEqual(statements, ['SELECT'], 'a use within the minute only reads');
    assert.equal((await lastUsed())!.getTime(), first.getTime());

    await db().query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [k.id]);
    statements.length = 0;
    assert.equal((await checkKey(counting, k.key)).ok, true);
    assert.deepEqual(statements, ['SELECT', 'UPDATE'], 'a use after the minute is recorded again');
    assert.ok((await lastUsed())!.getTime() > Date.now() - 60_000, 'written anew, not left two minutes back');
  });

  test('a known lookup with a wrong secret does the same database work as an unknown key, and gets the same answer', async () => {
    const k = await createKey(db(), { projectId: seeded.project.id, name: 'known lookup' });
    const lookup = k.key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_LENGTH);
    // Another well-formed key (valid checksum) whose lookup characters are those of a stored key.
    const random = `${lookup}${randomBase62(24)}`;
    const knownLookup = `${KEY_PREFIX}${random}${toBase62(crc32(random), 6)}`;
    assert.equal(parseApiKey(knownLookup)?.lookup, lookup);
    const unknown = generateApiKey();
    assert.equal((await db().query('SELECT 1 FROM api_keys WHERE lookup = $1', [unknown.lookup])).length, 0);

    const trace = async (presented: string) => {
      const calls: { sql: string; params: string[]; rows: number }[] = [];
      const recording = {
        query: async <Row>(sql: string, params: readonly unknown[] = []) => {
          const rows = await db().query<Row>(sql, params);
          calls.push({
            sql,
            // What kind of value each parameter is, and its size: what the database is handed.
            params: params.map((p) =>
              p instanceof Uint8Array ? `bytes:${p.length}` : `${typeof p}:${String(p).length}`,
            ),
            rows: rows.length,
          });
          return rows;
        },
        exec: (sql: string) => db().exec(sql),
      };
      const result = await checkKey(recording, presented);
      return { result, calls };
    };
    const known = await trace(knownLookup);
    const other = await trace(unknown.key);
    assert.deepEqual(known.result, { ok: false, reason: 'unknown' });
    assert.deepEqual(other.result, { ok: false, reason: 'unknown' });
    assert.deepEqual(
      known.calls,
      other.calls,
      'the same statements, parameters of the same shape, the same rows',
    );
    assert.equal(known.calls.length, 1);
    assert.equal(known.calls[0]!.rows, 0, 'the stored key of that lookup is not read at all');
  });

  test('a revoked key stops working at once', async () => {
    const k = await createKey(db(), { projectId: seeded.project.id });
    const url = `/v2/agent/${seeded.project.id}/jobs`;
    assert.equal((await app.inject({ url, headers: bearer(k.key) })).statusCode, 200);
    await revokeKey(db(), k.id);
    assert.equal((await app.inject({ url, headers: bearer(k.key) })).statusCode, 401);
  });
});

// The browser script's endpoint POST /v1/analytics/{projectId}/collect and GET /script.js, on the
// real app and both engines: origins (allowed, other, none, preflight), no key, the user agent and
// address taken from the request (the body's are ignored), classification, body errors, the rate
// limit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import type { CollectRouteOptions } from '../../src/modules/analytics/collect/routes.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const ORIGIN = 'https://docs.example.com';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const HEADLESS =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
/** Inside 132.196.86.0/24, one of GPTBot's published ranges in data/ai-agents.json. */
const GPTBOT_IP = '132.196.86.7';

async function collectApp(
  db: Database,
  collect: CollectRouteOptions = {},
  trustedProxies: string[] = [],
): Promise<App> {
  return buildApp({
    db,
    logger: createLogger('silent'),
    config: { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test', publicUrl: 'http://127.0.0.1:3000' },
    collect,
    trustedProxies,
  });
}

interface RollupRow {
  path: string;
  traffic_class: string;
  agent: string;
  verification: string;
  views: number;
}

await forEachBackend('browser script collect', ({ db }) => {
  let app: App;
  before(async () => {
    app = await collectApp(db(), { rateLimit: { burst: 10_000 } });
  });
  after(() => app.close());

  async function project(origins: string[] | null = [ORIGIN]) {
    return seedProject(db(), origins === null ? {} : { settings: { allowedOrigins: origins } });
  }
  // Ingestion stages views; the rollups have them once they are merged (as every export does).
  const rollups = async (projectId: string) => {
    await mergeStagedViews(db());
    return db().query<RollupRow>(
      `SELECT path, traffic_class, agent, verification, views FROM page_views_hourly
        WHERE project_id = $1 ORDER BY path, traffic_class, agent`,
      [projectId],
    );
  };
  const collect = (
    projectId: string,
    body: unknown,
    headers: Record<string, string> = {},
    extra: { remoteAddress?: string } = {},
  ) =>
    app.inject({
      method: 'POST',
      url: `/v1/analytics/${projectId}/collect`,
      headers: {
        origin: ORIGIN,
        'user-agent': CHROME,
        'content-type': 'text/plain;charset=UTF-8',
        ...headers,
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      ...extra,
    });

  describe('GET /script.js', () => {
    test('is served as JavaScript with a long cache lifetime, an ETag and a 304 on revalidation', async () => {
      const res = await app.inject({ method: 'GET', url: '/script.js' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.match(String(res.headers['cache-control']), /\bpublic\b.*\bmax-age=86400\b/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
      const etag = res.headers.etag as string;
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.ok(res.body.length < 2048, `small: ${res.body.length} bytes`);
      for (const part of ['sendBeacon', 'keepalive', 'pushState', 'popstate', 'data-project', '/collect'])
        assert.ok(res.body.includes(part), part);
      assert.ok(!/^\s*\/\//m.test(res.body), 'comment lines are not served');
      // It must still be JavaScript after compaction.
      assert.doesNotThrow(() => new Function(res.body));
      const again = await app.inject({
        method: 'GET',
        url: '/script.js',
        headers: { 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    });
  });

  describe('origins', () => {
    test('an allowed origin, no key: 202, counted as human, with CORS headers for that origin', async () => {
      const seeded = await project(['https://other.example', 'https://Docs.Example.com:443']);
      const res = await collect(seeded.project.id, {
        path: '/guide/intro/',
        referrer: 'https://www.google.com/',
      });
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(res.json(), { counted: true });
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(res.headers.vary), /Origin/);
      assert.deepEqual(await rollups(seeded.project.id), [
        { path: '/guide/intro', traffic_class: 'human', agent: '', verification: '', views: 1 },
      ]);
      const views = await app.inject({
        method: 'GET',
        url: `/v1/analytics/${seeded.project.id}/views`,
        headers: bearer(seeded.readKey),
      });
      assert.deepEqual(views.json().totals, { human: 1, ai: 0, total: 1 });
    });

    test('another origin, no Origin, an opaque origin, or no allowedOrigins: 403 origin_not_allowed, nothing counted', async () => {
      const seeded = await project();
      const cases: [string, Record<string, string>][] = [
        ['other origin', { origin: 'https://evil.example' }],
        ['other scheme', { origin: 'http://docs.example.com' }],
        ['other port', { origin: 'https://docs.example.com:8443' }],
        ['opaque', { origin: 'null' }],
        // new URL() reads each of these as https://docs.example.com; none is an origin serialization.
        ['with a path', { origin: 'https://docs.example.com/evil' }],
        ['with a trailing slash', { origin: 'https://docs.example.com/' }],
        ['with a user', { origin: 'https://evil@docs.example.com' }],
        ['with a user and password', { origin: 'https://a:b@docs.example.com' }],
        ['with a query', { origin: 'https://docs.example.com?x=1' }],
        ['with an empty query', { origin: 'https://docs.example.com?' }],
        ['with a fragment', { origin: 'https://docs.example.com#x' }],
        ['with a backslash path', { origin: 'https://docs.example.com\\evil' }],
        ['upper-case host', { origin: 'https://DOCS.example.com' }],
        ['default port written out', { origin: 'https://docs.example.com:443' }],
        ['trailing dot', { origin: 'https://docs.example.com.' }],
      ];
      for (const [name, headers] of cases) {
        const res = await collect(seeded.project.id, { path: '/x' }, headers);
        assert.equal(res.statusCode, 403, name);
        assert.equal(res.json().code, 'origin_not_allowed', name);
        assert.equal(res.headers['access-control-allow-origin'], undefined, name);
      }
      const noOrigin = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${seeded.project.id}/collect`,
        headers: { 'content-type': 'application/json', 'user-agent': CHROME },
        payload: JSON.stringify({ path: '/x' }),
      });
      assert.equal(noOrigin.statusCode, 403);
      assert.equal(noOrigin.json().code, 'origin_not_allowed');
      assert.match(noOrigin.json().error, /No Origin header/);
      const unset = await project(null);
      const res = await collect(unset.project.id, { path: '/x' });
      assert.equal(res.statusCode, 403);
      assert.match(res.json().error, /allowedOrigins/);
      assert.deepEqual(await rollups(seeded.project.id), []);
      assert.deepEqual(await rollups(unset.project.id), []);
    });

    test('an allowedOrigins entry with a user, path, query or fragment allows nothing', async () => {
      const entries = [
        'https://evil@docs.example.com',
        'https://docs.example.com/',
        'https://docs.example.com?',
        'https://docs.example.com#x',
      ];
      for (const entry of entries) {
        await assert.rejects(project([entry]), { code: 'invalid_project' }, entry);
      }
      // Settings saved before the setting's pattern was this strict are read the same way.
      const seeded = await project();
      await db().query(
        `UPDATE projects SET settings = jsonb_set(settings, '{allowedOrigins}', $2::jsonb) WHERE id = $1`,
        [seeded.project.id, JSON.stringify(entries)],
      );
      const res = await collect(seeded.project.id, { path: '/x' });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });

    test('an unknown project is refused with the same code as a wrong origin (nothing revealed)', async () => {
      const res = await collect('prj_doesnotexist000', { path: '/x' });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'origin_not_allowed');
    });

    test('preflight: 204 with the CORS answer for an allowed origin, 403 for another', async () => {
      const seeded = await project();
      const preflight = (origin: string) =>
        app.inject({
          method: 'OPTIONS',
          url: `/v1/analytics/${seeded.project.id}/collect`,
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
      const ok = await preflight(ORIGIN);
      assert.equal(ok.statusCode, 204);
      assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
      assert.equal(ok.headers['access-control-allow-methods'], 'POST');
      assert.match(String(ok.headers['access-control-allow-headers']), /content-type/i);
      assert.equal(ok.headers['access-control-max-age'], '86400');
      for (const origin of [
        'https://evil.example',
        'https://docs.example.com/evil',
        'https://evil@docs.example.com',
      ]) {
        const refused = await preflight(origin);
        assert.equal(refused.statusCode, 403, origin);
        assert.equal(refused.json().code, 'origin_not_allowed', origin);
        assert.equal(refused.headers['access-control-allow-origin'], undefined, origin);
      }
    });

    test('a key is neither needed nor looked at: a bogus Authorization header changes nothing', async () => {
      const seeded = await project();
      const res = await collect(seeded.project.id, { path: '/a' }, { authorization: 'Bearer not-a-key' });
      assert.equal(res.statusCode, 202, res.body);
    });
  });

  describe('classification from the request itself', () => {
    test('the user agent comes from the header: headless browser → bot, GPTBot → ai', async () => {
      const seeded = await project();
      assert.equal(
        (await collect(seeded.project.id, { path: '/h' }, { 'user-agent': HEADLESS })).statusCode,
        202,
      );
      assert.equal(
        (await collect(seeded.project.id, { path: '/g' }, { 'user-agent': GPTBOT })).statusCode,
        202,
      );
      const rows = await rollups(seeded.project.id);
      assert.deepEqual(
        rows.map((r) => [r.path, r.traffic_class]),
        [
          ['/g', 'ai'],
          ['/h', 'bot'],
        ],
      );
      assert.equal(rows[0]!.agent, 'GPTBot');
    });

    test('the address comes from the connection: GPTBot from its published range is verified, from elsewhere not', async () => {
      const seeded = await project();
      await collect(
        seeded.project.id,
        { path: '/v' },
        { 'user-agent': GPTBOT },
        { remoteAddress: GPTBOT_IP },
      );
      await collect(
        seeded.project.id,
        { path: '/u' },
        { 'user-agent': GPTBOT },
        { remoteAddress: '198.51.100.20' },
      );
      const rows = await rollups(seeded.project.id);
      assert.deepEqual(
        rows.map((r) => [r.path, r.agent, r.verification]),
        [
          ['/u', 'GPTBot', 'unverified'],
          ['/v', 'GPTBot', 'verified'],
        ],
      );
    });

    test('X-Forwarded-For gives the address only on a request from a trusted proxy', async () => {
      const behindProxy = await collectApp(db(), { rateLimit: { burst: 10_000 } }, ['10.0.0.0/8']);
      try {
        const seeded = await project();
        const send = (target: App, path: string, remoteAddress: string) =>
          target.inject({
            method: 'POST',
            url: `/v1/analytics/${seeded.project.id}/collect`,
            headers: {
              origin: ORIGIN,
              'user-agent': GPTBOT,
              'content-type': 'text/plain',
              'x-forwarded-for': GPTBOT_IP,
            },
            payload: JSON.stringify({ path }),
            remoteAddress,
          });
        // Through the listed proxy: the crawler's own address, inside its published range.
        assert.equal((await send(behindProxy, '/through-proxy', '10.1.2.3')).statusCode, 202);
        // A client that is not a listed proxy cannot claim an address by writing the header.
        assert.equal((await send(behindProxy, '/not-a-proxy', '198.51.100.20')).statusCode, 202);
        // With no trusted proxies (the default) the header is ignored, whoever sends it.
        assert.equal((await send(app, '/no-proxies', '10.1.2.3')).statusCode, 202);
        const rows = await rollups(seeded.project.id);
        assert.deepEqual(
          rows.map((r) => [r.path, r.agent, r.verification]),
          [
            ['/no-proxies', 'GPTBot', 'unverified'],
            ['/not-a-proxy', 'GPTBot', 'unverified'],
            ['/through-proxy', 'GPTBot', 'verified'],
          ],
        );
      } finally {
        await behindProxy.close();
      }
    });

    test("a user agent or an address in the body is ignored: the request's own are used", async () => {
      const seeded = await project();
      // Fields the body may not carry are dropped (as on every route), so a page cannot pose as
      // an agent, nor as its verified address.
      for (const body of [
        { path: '/x', userAgent: GPTBOT },
        { path: '/x', ip: GPTBOT_IP, userAgent: GPTBOT },
        { path: '/x', headers: { 'user-agent': GPTBOT } },
      ]) {
        const res = await collect(seeded.project.id, body, {}, { remoteAddress: '198.51.100.9' });
        assert.equal(res.statusCode, 202, JSON.stringify(body));
      }
      assert.deepEqual(await rollups(seeded.project.id), [
        { path: '/x', traffic_class: 'human', agent: '', verification: '', views: 3 },
      ]);
    });

    test('url instead of path, JSON content type; asset paths are dropped with their reason', async () => {
      const seeded = await project();
      const viaUrl = await collect(
        seeded.project.id,
        { url: 'https://docs.example.com/start/index.html?utm=1#top' },
        { 'content-type': 'application/json' },
      );
      assert.equal(viaUrl.statusCode, 202, viaUrl.body);
      const asset = await collect(seeded.project.id, { path: '/logo.png' });
      assert.deepEqual(asset.json(), { counted: false, dropped: 'asset' });
      assert.deepEqual(
        (await rollups(seeded.project.id)).map((r) => [r.path, r.views]),
        [['/start', 1]],
      );
    });
  });

  describe('bad bodies', () => {
    test('empty, not JSON, no page, too large, or a form: a 4xx naming the problem', async () => {
      const seeded = await project();
      const id = seeded.project.id;
      const expect = async (res: Awaited<ReturnType<typeof collect>>, status: number, code: string) => {
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().code, code);
      };
      await expect(await collect(id, ''), 400, 'invalid_json');
      await expect(await collect(id, '{nope'), 400, 'invalid_json');
      await expect(await collect(id, {}), 400, 'invalid_body');
      await expect(await collect(id, { path: 42 }), 400, 'invalid_body');
      await expect(await collect(id, { path: `/${'a'.repeat(9000)}` }), 413, 'body_too_large');
      await expect(
        await collect(id, 'path=/x', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      );
      assert.deepEqual(await rollups(id), []);
    });
  });

  describe('rate limit', () => {
    test('past the burst an address gets 429 with Retry-After; other addresses are not affected', async () => {
      const limited = await collectApp(db(), { rateLimit: { burst: 3, perSecond: 0.01 } });
      try {
        const seeded = await project();
        const send = (remoteAddress: string) =>
          limited.inject({
            method: 'POST',
            url: `/v1/analytics/${seeded.project.id}/collect`,
            headers: { origin: ORIGIN, 'user-agent': CHROME, 'content-type': 'text/plain' },
            payload: JSON.stringify({ path: '/r' }),
            remoteAddress,
          });
        for (let i = 0; i < 3; i++) assert.equal((await send('192.0.2.1')).statusCode, 202);
        const refused = await send('192.0.2.1');
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().code, 'rate_limited');
        assert.ok(Number(refused.headers['retry-after']) >= 1);
        assert.equal((await send('192.0.2.2')).statusCode, 202);
        const [row] = await rollups(seeded.project.id);
        assert.equal(row!.views, 4);
      } finally {
        await limited.close();
      }
    });
  });
});

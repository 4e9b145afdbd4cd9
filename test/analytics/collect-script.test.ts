// The browser script's logic, run in node:vm with a stand-in for the few browser objects it
// touches (document, location, history, navigator, window), each beacon posted over real HTTP to
// the real server, whose counts are then checked. This is a unit test of the script's decisions
// (when to send, what, how); collect-browser.test.ts runs it in a real browser where one exists.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { runInNewContext } from 'node:vm';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';

const PAGE_ORIGIN = 'https://docs.example.com';
const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface Sent {
  via: 'beacon' | 'fetch';
  url: string;
  body: Record<string, unknown>;
  type: string;
  init?: Record<string, unknown>;
}

/** A page with the script, in a stand-in browser whose requests really reach baseUrl. */
function fakePage(options: {
  baseUrl: string;
  scriptAttributes: Record<string, string>;
  path?: string;
  visibility?: 'visible' | 'hidden';
  prerendering?: boolean;
  beacon?: 'works' | 'refuses' | 'missing';
}) {
  const sent: Sent[] = [];
  const inFlight: Promise<unknown>[] = [];
  const listeners = new Map<string, Set<() => void>>();
  const on = (type: string, fn: () => void) => {
    if (!listeners.has(type)) listeners.set(type, new Set());
    listeners.get(type)!.add(fn);
  };
  const off = (type: string, fn: () => void) => listeners.get(type)?.delete(fn);
  const fire = (type: string) => {
    for (const fn of [...(listeners.get(type) ?? [])]) fn();
  };
  const location = { pathname: options.path ?? '/' };
  const navigate = (url: string) => {
    location.pathname = new URL(url, `${PAGE_ORIGIN}${location.pathname}`).pathname;
  };
  const post = (url: string, body: string, type: string) =>
    fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': type, origin: PAGE_ORIGIN, 'user-agent': CHROME },
    }).then((r) => r.text());

  const document = {
    currentScript: {
      src: `${options.baseUrl}/script.js`,
      getAttribute: (name: string) => options.scriptAttributes[name] ?? null,
    },
    referrer: 'https://www.google.com/',
    visibilityState: options.visibility ?? 'visible',
    prerendering: options.prerendering ?? false,
    addEventListener: on,
    removeEventListener: off,
  };
  const navigator: Record<string, unknown> = {};
  if (options.beacon !== 'missing') {
    navigator.sendBeacon = (url: string, blob: Blob) => {
      if (options.beacon === 'refuses') return false;
      const p = blob.text().then((text) => {
        sent.push({ via: 'beacon', url, body: JSON.parse(text), type: blob.type });
        return post(url, text, blob.type);
      });
      inFlight.push(p);
      return true;
    };
  }
  const window = {
    addEventListener: on,
    fetch: (url: string, init: { body: string; headers: Record<string, string> }) => {
      sent.push({
        via: 'fetch',
        url,
        body: JSON.parse(init.body),
        type: init.headers['content-type']!,
        init,
      });
      const p = post(url, init.body, init.headers['content-type']!);
      inFlight.push(p);
      return p;
    },
  };
  const history = {
    pushState: (_state: unknown, _title: string, url: string) => navigate(url),
    replaceState: (_state: unknown, _title: string, url: string) => navigate(url),
  };
  return {
    sent,
    document,
    history,
    location,
    fire,
    async settle() {
      while (inFlight.length > 0) await inFlight.shift();
    },
    run(script: string) {
      runInNewContext(script, {
        document,
        location,
        history,
        navigator,
        window,
        fetch: window.fetch,
        Blob,
        URL,
        JSON,
        encodeURIComponent,
      });
    },
    back(url: string) {
      navigate(url);
      fire('popstate');
    },
  };
}

describe('the browser script in a stand-in browser, against the real server', () => {
  let db: Database;
  let app: App;
  let baseUrl: string;
  let script: string;
  let projectId: string;

  before(async () => {
    db = await openTestDatabase('pglite');
    app = await buildApp({
      db,
      logger: createLogger('silent'),
      config: { jobRateLimitPerHour: 100, defaultModel: null, publicUrl: 'http://127.0.0.1' },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    script = await (await fetch(`${baseUrl}/script.js`)).text();
    projectId = (await seedProject(db, { settings: { allowedOrigins: [PAGE_ORIGIN] } })).project.id;
  });
  after(async () => {
    await app.close();
    await db.close();
  });

  // Ingestion stages views; the rollups have them once they are merged (as every export does).
  const counts = async () => {
    await mergeStagedViews(db);
    return (
      await db.query<{ path: string; traffic_class: string; views: number }>(
        `SELECT path, traffic_class, sum(views)::bigint AS views FROM page_views_hourly
          WHERE project_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
        [projectId],
      )
    ).map((r) => [r.path, r.traffic_class, Number(r.views)]);
  };

  test('load and single-page-app navigation: one view per new path, referrer only on the first', async () => {
    const page = fakePage({ baseUrl, scriptAttributes: { 'data-project': projectId }, path: '/start' });
    page.run(script);
    page.history.pushState({}, '', '/guide');
    page.history.replaceState({}, '', '/guide?tab=2'); // same page
    page.history.pushState({}, '', '/guide#install'); // same page
    page.history.pushState({}, '', 'reference/api'); // relative URL
    page.back('/start');
    await page.settle();
    assert.deepEqual(
      page.sent.map((s) => [s.via, s.body.path, s.body.referrer ?? null, s.type]),
      [
        ['beacon', '/start', 'https://www.google.com/', 'text/plain'],
        ['beacon', '/guide', null, 'text/plain'],
        ['beacon', '/reference/api', null, 'text/plain'],
        ['beacon', '/start', null, 'text/plain'],
      ],
    );
    assert.equal(page.sent[0]!.url, `${baseUrl}/v1/analytics/${projectId}/collect`);
    assert.deepEqual(await counts(), [
      ['/guide', 'human', 1],
      ['/reference/api', 'human', 1],
      ['/start', 'human', 2],
    ]);
  });

  test('a background tab counts when first shown; a prerendered page when activated; never before', async () => {
    const hidden = fakePage({
      baseUrl,
      scriptAttributes: { 'data-project': projectId },
      path: '/bg',
      visibility: 'hidden',
    });
    hidden.run(script);
    hidden.history.pushState({}, '', '/bg2'); // navigated while hidden: still nothing
    await hidden.settle();
    assert.equal(hidden.sent.length, 0);
    hidden.document.visibilityState = 'visible';
    hidden.fire('visibilitychange');
    hidden.fire('visibilitychange');
    await hidden.settle();
    assert.deepEqual(
      hidden.sent.map((s) => s.body.path),
      ['/bg2'],
    );

    const pre = fakePage({
      baseUrl,
      scriptAttributes: { 'data-project': projectId },
      path: '/pre',
      prerendering: true,
    });
    pre.run(script);
    await pre.settle();
    assert.equal(pre.sent.length, 0);
    pre.document.prerendering = false;
    pre.fire('prerenderingchange');
    await pre.settle();
    assert.deepEqual(
      pre.sent.map((s) => s.body.path),
      ['/pre'],
    );
  });

  test('without sendBeacon, or when it refuses, a keepalive fetch without credentials is sent', async () => {
    for (const beacon of ['missing', 'refuses'] as const) {
      const page = fakePage({
        baseUrl,
        scriptAttributes: { 'data-project': projectId },
        path: `/fb-${beacon}`,
        beacon,
      });
      page.run(script);
      await page.settle();
      assert.equal(page.sent.length, 1, beacon);
      const [s] = page.sent;
      assert.equal(s!.via, 'fetch');
      assert.equal(s!.init!.keepalive, true);
      assert.equal(s!.init!.credentials, 'omit');
      assert.equal(s!.init!.method, 'POST');
      assert.equal(s!.type, 'text/plain');
    }
    const rows = await counts();
    assert.ok(rows.some(([p]) => p === '/fb-missing'));
    assert.ok(rows.some(([p]) => p === '/fb-refuses'));
  });

  test('data-api sends to another server; no data-project sends nothing', async () => {
    const elsewhere = fakePage({
      baseUrl: 'https://cdn.example.net',
      scriptAttributes: { 'data-project': projectId, 'data-api': `${baseUrl}/` },
      path: '/api-attr',
    });
    elsewhere.run(script);
    await elsewhere.settle();
    assert.equal(elsewhere.sent[0]!.url, `${baseUrl}/v1/analytics/${projectId}/collect`);
    const none = fakePage({ baseUrl, scriptAttributes: {}, path: '/nothing' });
    none.run(script);
    await none.settle();
    assert.deepEqual(none.sent, []);
  });
});

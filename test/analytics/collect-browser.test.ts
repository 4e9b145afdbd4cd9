// The browser script in a real browser: Debian's Chromium at /usr/bin/chromium driven by
// playwright-core. A page on an allowed origin (a local static server) loads /script.js from the
// docwright server, then navigates as a single-page app; both views must be counted as human.
// Skipped, saying why, where Chromium or playwright-core is not installed (neither is installed
// by the tests).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface Playwright {
  chromium: {
    launch(options: { executablePath: string; args?: string[] }): Promise<{
      newContext(options: { userAgent: string }): Promise<{
        newPage(): Promise<{
          goto(url: string): Promise<unknown>;
          evaluate(expression: string): Promise<unknown>;
        }>;
      }>;
      close(): Promise<void>;
    }>;
  };
}

async function loadPlaywright(): Promise<Playwright | string> {
  if (!existsSync(CHROMIUM))
    return `no Chromium at ${CHROMIUM} (Debian package "chromium"; set CHROMIUM_PATH)`;
  try {
    const name = 'playwright-core';
    return (await import(name)) as Playwright;
  } catch {
    return 'the playwright-core package is not installed';
  }
}

const playwright = await loadPlaywright();
const skip = typeof playwright === 'string' ? `browser test skipped: ${playwright}` : false;

let db: Database;
let app: App;
let site: Server;
let apiUrl: string;
let siteUrl: string;
let projectId: string;

before(async () => {
  if (skip) return;
  db = await openTestDatabase('pglite');
  app = await buildApp({
    db,
    logger: createLogger('silent'),
    config: { jobRateLimitPerHour: 100, defaultModel: null, publicUrl: 'http://127.0.0.1' },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The docs site: every path answers the same page, as a single-page app's host does.
  site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Docs</title><h1>Docs</h1><script defer src="${apiUrl}/script.js" data-project="${projectId}"></script>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  projectId = (await seedProject(db, { settings: { allowedOrigins: [siteUrl] } })).project.id;
});
after(async () => {
  if (skip) return;
  await new Promise((resolve) => site.close(resolve));
  await app.close();
  await db.close();
});

test('a real browser posts a view on load and on pushState navigation, counted as human', {
  skip,
}, async () => {
  const browser = await (playwright as Playwright).chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox'],
  });
  try {
    const context = await browser.newContext({ userAgent: CHROME_UA });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/guide/intro`);
    // Ingestion stages views; the rollups have them once they are merged (as every export does).
    const counted = async () => {
      await mergeStagedViews(db);
      return db.query<{ path: string; traffic_class: string; views: number }>(
        'SELECT path, traffic_class, views FROM page_views_hourly WHERE project_id = $1 ORDER BY path',
        [projectId],
      );
    };
    // Beacons are asynchronous: wait for them (the test fails by its own timeout otherwise).
    while ((await counted()).length < 1) await sleep(50);
    await page.evaluate("history.pushState({}, '', '/guide/next')");
    while ((await counted()).length < 2) await sleep(50);
    assert.deepEqual(
      (await counted()).map((r) => [r.path, r.traffic_class, Number(r.views)]),
      [
        ['/guide/intro', 'human', 1],
        ['/guide/next', 'human', 1],
      ],
    );
  } finally {
    await browser.close();
  }
});

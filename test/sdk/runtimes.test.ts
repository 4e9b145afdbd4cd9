// The client runs unchanged in Node, Deno, Bun and a browser: the same smoke pass
// (runtimes/smoke.ts) against a real server, in each runtime found on this machine, compared with
// what the server holds. Deno and Bun are found on PATH or through DENO_PATH / BUN_PATH (the npm
// packages "deno" and "@oven/bun-linux-x64" ship them); Chromium is Debian's (CHROMIUM_PATH). A
// runtime that is missing skips its test with the reason.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Database } from '../../src/db/database.ts';
import { DocwrightClient } from '../../src/sdk/index.ts';
import { browserMissing, launchChromium } from '../dashboard/browser/support.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';
import { stripTypes } from '../helpers/strip-types.ts';
import { type LiveServer, PR_LINK_BASE, startLiveServer } from './live-server.ts';
import type { smoke } from './runtimes/smoke.ts';

type SmokeResult = Awaited<ReturnType<typeof smoke>>;

const SRC_DIR = fileURLToPath(new URL('../../src/', import.meta.url));
const MAIN = fileURLToPath(new URL('./runtimes/main.ts', import.meta.url));
const SMOKE = fileURLToPath(new URL('./runtimes/smoke.ts', import.meta.url));

/** A binary from its variable, else from PATH; null when absent. */
function findBinary(variable: string, name: string): string | null {
  const given = process.env[variable];
  if (given) return existsSync(given) ? given : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

let db: Database;
let server: LiveServer;
let origin: Server;
let originUrl: string;
let apiKey: string;
let projectId: string;
let client: DocwrightClient;

/**
 * One origin for the browser page: the client's modules and the contract's files they import
 * (types stripped, as a bundler would, and at the same relative places) and
 * a page, with everything else forwarded to the API, so the page calls the API from its own
 * origin (the API sends no CORS headers).
 */
function startOrigin(apiUrl: string): Promise<Server> {
  const api = new URL(apiUrl);
  const page = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const module = /^\/((?:sdk|contract)\/[a-z-]+\.ts)$/.exec(path)?.[1];
    if (module && existsSync(join(SRC_DIR, module))) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(stripTypes(readFileSync(join(SRC_DIR, module), 'utf8')));
      return;
    }
    if (path === '/smoke.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(stripTypes(readFileSync(SMOKE, 'utf8')));
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>client</title>');
      return;
    }
    const forward = httpRequest(
      {
        host: api.hostname,
        port: api.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: api.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => page.listen(0, '127.0.0.1', () => resolve(page)));
}

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  const seeded = await seedProject(db, { model: 'openai:gpt-test' });
  apiKey = seeded.adminKey;
  projectId = seeded.project.id;
  client = new DocwrightClient({ baseUrl: server.url, apiKey });
  await recordPageViews(
    db,
    ['/a', '/b', '/c', '/d', '/e'].map((path, i) => ({
      projectId,
      hour: new Date('2026-01-05T10:00:00Z'),
      path,
      trafficClass: 'human' as const,
      views: i + 1,
    })),
  );
  origin = await startOrigin(server.url);
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
after(async () => {
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
  await server.close();
  await db.close();
});

/** What every runtime must have seen, checked against the server through the Node client. */
async function check(result: SmokeResult): Promise<void> {
  assert.equal(result.status, 'completed');
  assert.ok(result.prLink?.startsWith(PR_LINK_BASE), String(result.prLink));
  const events = await client.listJobEvents(projectId, result.jobId);
  assert.deepEqual(
    result.events,
    events.map((e) => e.type),
  );
  assert.deepEqual(
    result.streamed,
    events.map((e) => e.id),
  );
  assert.deepEqual(result.resumed, result.streamed.slice(2), 'resumed after the second event');
  assert.ok(result.listed.includes(result.jobId));
  assert.equal(new Set(result.listed).size, result.listed.length);
  assert.deepEqual(result.views, (await client.viewsReport(projectId)).views);
  assert.equal(result.views.length, 5);
  assert.equal(result.csvIsJsonAsCsv, true);
  assert.deepEqual(result.notFound, { typed: true, code: 'job_not_found', status: 404, requestId: 'string' });
}

/** Runs the smoke pass in a child process (asynchronously: the server runs in this process). */
async function runSmoke(command: string, args: string[], runtime: string): Promise<SmokeResult> {
  const child = spawn(command, [...args, MAIN], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SMOKE_URL: server.url,
      SMOKE_KEY: apiKey,
      SMOKE_PROJECT: projectId,
      SMOKE_RUNTIME: runtime,
      NO_COLOR: '1',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  clearTimeout(timer);
  assert.equal(code, 0, `${runtime}: ${stderr}`);
  return JSON.parse(stdout) as SmokeResult;
}

test('Node', async () => {
  await check(await runSmoke(process.execPath, [], 'node'));
});

const deno = findBinary('DENO_PATH', 'deno');
test('Deno', { skip: deno === null ? 'no deno (set DENO_PATH or put it on PATH)' : false }, async () => {
  // No type check and no config: the client's `import type` lines are erased, nothing else is loaded.
  await check(
    await runSmoke(
      deno!,
      ['run', '--allow-net=127.0.0.1', '--allow-env', '--no-config', '--no-lock'],
      'deno',
    ),
  );
});

const bun = findBinary('BUN_PATH', 'bun');
test('Bun', { skip: bun === null ? 'no bun (set BUN_PATH or put it on PATH)' : false }, async () => {
  await check(await runSmoke(bun!, ['run'], 'bun'));
});

const noBrowser = browserMissing();
test('a browser (Chromium), from a page of the same origin', { skip: noBrowser ?? false }, async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${originUrl}/`);
    const result = (await page.evaluate(
      async ({ apiKey, projectId, baseUrl }) => {
        const sdk = await import(`${baseUrl}/sdk/index.ts`);
        const { smoke } = await import(`${baseUrl}/smoke.js`);
        return smoke(sdk, { baseUrl, apiKey, projectId, runtime: 'chromium' });
      },
      { apiKey, projectId, baseUrl: originUrl },
    )) as SmokeResult;
    await check(result);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

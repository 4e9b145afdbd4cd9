// /readyz on PostgreSQL through a TCP proxy the test breaks: while the database cannot be reached
// it answers 503 database_unavailable (and /healthz stays 200), and once the network is back it
// answers 200 again from the same process: the pg pool drops its dead connections and opens new
// ones, no restart needed. Two ways of breaking: connections reset and refused (the server went
// away), and connections that stall silently (a partition), with more probes than the pool has
// connections, so a probe can never hang on a pool emptied by stuck ones. Meanwhile any request
// that needs the database answers 503 database_unavailable with Retry-After, not a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { parseExposition } from './prometheus-text.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const POOL_SIZE = 4;

describe('/readyz while PostgreSQL is unreachable, and after', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let db: Database;
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;

  before(async () => {
    database = await createPostgresDatabase();
    const real = new URL(database.url);
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const through = new URL(database.url);
    through.host = `127.0.0.1:${proxy.port}`;
    db = await openPostgres(through.toString(), { max: POOL_SIZE });
    await migrate(db);
    app = await buildApp({
      db,
      logger: createLogger('silent'),
      config: {
        jobRateLimitPerHour: 100,
        defaultModel: 'openai:gpt-test',
        publicUrl: 'http://127.0.0.1:3000',
      },
    });
    seeded = await seedProject(db);
  });
  after(async () => {
    proxy?.restore();
    await app?.close();
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  const probe = async (url: string) => {
    const res = await app.inject({ url });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };
  const jobsList = () =>
    app.inject({ url: `/v2/agent/${seeded.project.id}/jobs`, headers: bearer(seeded.readKey) });

  function assertUnavailable(answer: { status: number; body: Record<string, unknown> }) {
    assert.equal(answer.status, 503);
    assert.equal(answer.body.code, 'database_unavailable');
    assert.match(String(answer.body.requestId), /^req_/);
    // Nothing about the connection leaks: no address, port, driver message.
    assert.doesNotMatch(JSON.stringify(answer.body), /127\.0\.0\.1|ECONN|terminated|timeout|5432/i);
  }

  test('connections reset and refused: 503 database_unavailable, /healthz 200; 200 again after', async () => {
    assert.deepEqual(await probe('/readyz'), { status: 200, body: { status: 'ready' } });
    assert.equal((await jobsList()).statusCode, 200);

    proxy.cut();
    // More probes than the pool holds connections.
    for (let i = 0; i < POOL_SIZE + 2; i++) {
      assertUnavailable(await probe('/readyz'));
      assert.deepEqual(await probe('/healthz'), { status: 200, body: { status: 'ok' } });
    }
    // Requests that need the database: an outage, not a fault, so 503 with Retry-After.
    const during = [
      await jobsList(),
      await app.inject({
        method: 'POST',
        url: `/v1/analytics/${seeded.project.id}/events`,
        headers: bearer(seeded.ingestKey),
        payload: [{ path: '/guide', userAgent: 'Mozilla/5.0 Chrome/143.0' }],
      }),
    ];
    for (const res of during) {
      assertUnavailable({ status: res.statusCode, body: res.json() });
      assert.equal(res.headers['retry-after'], '5');
    }
    const scraped = await app.inject({ url: '/metrics' });
    assert.equal(scraped.statusCode, 200, 'metrics are served while the database is down');
    const metrics = parseExposition(scraped.body);
    assert.equal(metrics.value('docwright_database_up'), 0);
    assert.deepEqual(metrics.matching('docwright_jobs'), []);

    proxy.restore();
    const acceptedBefore = proxy.accepted;
    assert.deepEqual(await probe('/readyz'), { status: 200, body: { status: 'ready' } });
    assert.ok(proxy.accepted > acceptedBefore, 'the pool opened a new connection');
    assert.equal((await jobsList()).statusCode, 200);
  });

  test('connections that stall silently: every probe still answers 503 in bounded time; 200 after', async () => {
    assert.equal((await probe('/readyz')).status, 200);
    proxy.stall();
    // Concurrent probes, twice the pool: each holds a stuck connection or waits for one.
    const during = await Promise.all(Array.from({ length: POOL_SIZE * 2 }, () => probe('/readyz')));
    for (const answer of during) assertUnavailable(answer);
    assert.deepEqual(await probe('/healthz'), { status: 200, body: { status: 'ok' } });

    proxy.restore();
    // The stuck queries finish once their bytes flow again; the pool is whole without a restart.
    let ready = await probe('/readyz');
    for (let i = 0; i < 50 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await probe('/readyz');
    }
    assert.deepEqual(ready, { status: 200, body: { status: 'ready' } });
    assert.equal((await jobsList()).statusCode, 200);
  });
});

describe('which errors mean the database cannot be reached', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });
  test('socket failures, lost connections, shutdowns and connection SQLSTATEs', () => {
    for (const error of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('ETIMEDOUT'),
      withCode('08006'),
      withCode('08001'),
      withCode('57P01'),
      withCode('57P03'),
      withCode('53300'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect'),
      new Error('wrapped', { cause: withCode('ECONNRESET') }),
    ]) {
      assert.equal(
        isDatabaseUnavailable(error),
        true,
        String((error as { code?: string }).code ?? error.message),
      );
    }
  });
  test('statement faults and everything else are not', () => {
    for (const error of [
      withCode('23505'), // unique violation
      withCode('42P01'), // undefined table
      withCode('57014'), // query cancelled
      new Error('syntax error at or near "SELEC"'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('23505')], 'mixed'),
      new AggregateError([], 'empty'),
      null,
      'ECONNREFUSED',
    ]) {
      assert.equal(isDatabaseUnavailable(error), false, String(error));
    }
  });
});

// The worker's metrics endpoint (DOCWRIGHT_METRICS_PORT) over real HTTP, and the two metrics
// settings as loadConfig reads them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { type MetricsServer, startMetricsServer } from '../../src/metrics/metrics-server.ts';
import { createMetrics } from '../../src/metrics/registry.ts';
import { parseExposition } from './prometheus-text.ts';

const TOKEN = 'worker-metrics-token-0123456789';

describe('the worker metrics server', () => {
  const metrics = createMetrics();
  let open: MetricsServer;
  let guarded: MetricsServer;
  before(async () => {
    metrics.addWorker(() => 3);
    metrics.jobsFinished.inc({ status: 'completed', code: '' }, 2);
    open = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0, token: null });
    guarded = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0, token: TOKEN });
  });
  after(async () => {
    await open?.close();
    await guarded?.close();
  });

  test('GET /metrics answers the registry in the Prometheus text format', async () => {
    const res = await fetch(`${open.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
    const read = parseExposition(await res.text());
    assert.equal(read.value('docwright_worker_running_jobs'), 3);
    assert.equal(read.value('docwright_jobs_finished_total', { status: 'completed', code: '' }), 2);
  });

  test('anything else is a 404 in docwright error shape', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/metrics/x'],
      ['POST', '/metrics'],
    ] as const) {
      const res = await fetch(`${open.url}${path}`, { method });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(((await res.json()) as { code: string }).code, 'route_not_found');
    }
  });

  test('with a token: 401 metrics_token_required without it or with another, 200 with it', async () => {
    for (const authorization of [undefined, 'Bearer nope-nope-nope-nope', `Bearer ${TOKEN}0`]) {
      const res = await fetch(`${guarded.url}/metrics`, authorization ? { headers: { authorization } } : {});
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { code: string }).code, 'metrics_token_required');
    }
    const res = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.equal(parseExposition(await res.text()).value('docwright_worker_running_jobs'), 3);
  });
});

describe('metrics settings', () => {
  const base = { DOCWRIGHT_DATA_DIR: '/tmp/unused', DOCWRIGHT_SECRET_KEY: 'a'.repeat(64) };

  test('unset: /metrics open, no worker port', () => {
    assert.deepEqual(loadConfig(base).metrics, { token: null, workerPort: null });
  });

  test('a token and a port are read', () => {
    const config = loadConfig({ ...base, DOCWRIGHT_METRICS_TOKEN: TOKEN, DOCWRIGHT_METRICS_PORT: '9101' });
    assert.deepEqual(config.metrics, { token: TOKEN, workerPort: 9101 });
  });

  test('a short token or a bad port is refused by name, without echoing the token', () => {
    const short = 'tooshort';
    assert.throws(
      () => loadConfig({ ...base, DOCWRIGHT_METRICS_TOKEN: short, DOCWRIGHT_METRICS_PORT: 'x' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        assert.match(text, /DOCWRIGHT_METRICS_TOKEN must be at least 16 characters/);
        assert.match(text, /DOCWRIGHT_METRICS_PORT must be an integer from 0 to 65535/);
        assert.ok(!text.includes(short));
        return true;
      },
    );
  });
});

// GET /metrics on both engines, through the real app: the Prometheus text parses, HTTP latency is
// labelled by route pattern (never by URL, id or key), the job gauges read the database (cached
// for a few seconds), ingestion and group commits are counted as the answers say, a worker's
// outcomes add their usage, and DOCWRIGHT_METRICS_TOKEN protects the route when set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { addDatabaseGauges } from '../../src/metrics/database-gauges.ts';
import { jobWorkerObserver, trackWorker } from '../../src/metrics/job-metrics.ts';
import { createMetrics, type DocwrightMetrics } from '../../src/metrics/registry.ts';
import { stageViews, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import type { JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createLogger } from '../../src/util/logger.ts';
import { postRecords } from '../analytics/ingest-helpers.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { parseExposition } from './prometheus-text.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)';
const ORIGIN = 'https://docs.example.com';

function appOn(db: Database, extra: { metrics?: DocwrightMetrics; metricsToken?: string } = {}) {
  return buildApp({
    db,
    logger: createLogger('silent'),
    config: {
      jobRateLimitPerHour: 1000,
      defaultModel: 'openai:gpt-test',
      publicUrl: 'http://127.0.0.1:3000',
    },
    ...extra,
  });
}

async function scrape(app: App, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return { text: res.body, metrics: parseExposition(res.body) };
}

async function createJob(app: App, projectId: string, key: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/agent/${projectId}/job`,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: { prompt: 'Fix the typos' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

await forEachBackend('metrics', ({ db }) => {
  let app: App;
  before(async () => {
    app = await appOn(db());
  });
  after(() => app.close());

  test('HTTP latency by route pattern and status class; no ids, keys or raw paths in any label', async () => {
    const seeded = await seedProject(db());
    const jobId = await createJob(app, seeded.project.id, seeded.adminKey);
    const job = `/v2/agent/${seeded.project.id}/job/${jobId}`;
    for (let i = 0; i < 3; i++) {
      assert.equal((await app.inject({ url: job, headers: bearer(seeded.readKey) })).statusCode, 200);
    }
    const missing = `/v2/agent/${seeded.project.id}/job/job_doesNotExist0000000`;
    assert.equal((await app.inject({ url: missing, headers: bearer(seeded.readKey) })).statusCode, 404);
    const unmatched = `/wp-admin/${seeded.project.id}/${seeded.adminKey}`;
    assert.equal((await app.inject({ url: unmatched })).statusCode, 404);
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);

    const { text, metrics } = await scrape(app);
    assert.equal(metrics.types.get('docwright_http_request_duration_seconds'), 'histogram');
    const count = (labels: Record<string, string>) =>
      metrics.value('docwright_http_request_duration_seconds_count', labels);
    const route = '/v2/agent/:projectId/job/:id';
    assert.equal(count({ method: 'GET', route, status_class: '2xx' }), 3);
    assert.equal(count({ method: 'GET', route, status_class: '4xx' }), 1);
    assert.equal(count({ method: 'POST', route: '/v2/agent/:projectId/job', status_class: '2xx' }), 1);
    assert.equal(count({ method: 'GET', route: 'unmatched', status_class: '4xx' }), 1);
    assert.equal(count({ method: 'GET', route: '/healthz', status_class: '2xx' }), 1);
    // The +Inf bucket holds every observation; the sum is a duration in seconds.
    const inf = metrics.value('docwright_http_request_duration_seconds_bucket', {
      method: 'GET',
      route,
      status_class: '2xx',
      le: '+Inf',
    });
    assert.equal(inf, 3);
    for (const secret of [seeded.project.id, seeded.adminKey, seeded.readKey, jobId, 'wp-admin']) {
      assert.ok(!text.includes(secret), `the metrics must not contain ${secret}`);
    }
  });

  test('jobs by status and the queue are read from the database', async () => {
    const seeded = await seedProject(db());
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createJob(app, seeded.project.id, seeded.adminKey));
    const before = (await db().query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM jobs GROUP BY status',
    )) as { status: string; n: number }[];
    const countOf = (status: string) => before.find((r) => r.status === status)?.n ?? 0;
    // One job held by a worker, one finished each way, and the oldest waiting one queued an hour ago.
    await db().query(
      `UPDATE jobs SET lease_owner = 'w', lease_expires_at = now() + interval '1 minute' WHERE id = $1`,
      [ids[0]],
    );
    await db().query(`UPDATE jobs SET status = 'completed' WHERE id = $1`, [ids[1]]);
    await db().query(`UPDATE jobs SET status = 'failed', error_code = 'pr_failed' WHERE id = $1`, [ids[2]]);
    await db().query(`UPDATE jobs SET updated_at = now() - interval '1 hour' WHERE id = $1`, [ids[3]]);

    const metrics = createMetrics();
    let clock = 1_000_000;
    addDatabaseGauges(metrics, db(), { now: () => clock });
    const read = async () => parseExposition(await metrics.registry.metrics());
    const first = await read();
    assert.equal(first.value('docwright_database_up'), 1);
    assert.equal(first.value('docwright_jobs', { status: 'active' }), countOf('active') - 2);
    assert.equal(first.value('docwright_jobs', { status: 'completed' }), countOf('completed') + 1);
    assert.equal(first.value('docwright_jobs', { status: 'failed' }), countOf('failed') + 1);
    assert.equal(first.value('docwright_jobs', { status: 'archived' }), 0);
    const activeJobs = countOf('active') - 2;
    assert.equal(first.value('docwright_job_queue_depth', { state: 'running' }), 1);
    assert.equal(first.value('docwright_job_queue_depth', { state: 'waiting' }), activeJobs - 1);
    const oldest = first.value('docwright_job_queue_oldest_waiting_seconds')!;
    assert.ok(oldest >= 3600 && oldest < 3600 + 600, `oldest waiting ${oldest} s`);

    // The queue is read again after 5 s; the count over all jobs only after 60 s.
    await db().query(`UPDATE jobs SET status = 'archived' WHERE id = $1`, [ids[1]]);
    await db().query(
      `UPDATE jobs SET lease_owner = 'w', lease_expires_at = now() + interval '1 minute' WHERE id = $1`,
      [ids[4]],
    );
    clock += 4000;
    let again = await read();
    assert.equal(again.value('docwright_job_queue_depth', { state: 'running' }), 1);
    clock += 2000;
    again = await read();
    assert.equal(again.value('docwright_job_queue_depth', { state: 'running' }), 2);
    assert.equal(again.value('docwright_jobs', { status: 'archived' }), 0);
    clock += 55_000;
    again = await read();
    assert.equal(again.value('docwright_jobs', { status: 'archived' }), 1);
    assert.equal(again.value('docwright_jobs', { status: 'completed' }), countOf('completed'));
  });

  test('page views waiting to be merged, and how long the oldest has waited', async () => {
    const seeded = await seedProject(db());
    const metrics = createMetrics();
    let clock = 1_000_000;
    addDatabaseGauges(metrics, db(), { now: () => clock });
    const read = async () => parseExposition(await metrics.registry.metrics());
    // Earlier tests' writers merged what they staged when their apps closed.
    assert.equal((await read()).value('docwright_ingest_staged_views'), 0);
    assert.equal((await read()).value('docwright_ingest_staged_oldest_seconds'), 0);

    const sums = ViewSums.ofRows([
      { projectId: seeded.project.id, hour: new Date(), path: '/staged', trafficClass: 'human', views: 7 },
    ]);
    await db().transaction((tx) => stageViews(tx, sums));
    await db().query("UPDATE page_views_staged SET created_at = now() - interval '90 seconds'");
    clock += 6000;
    const waiting = await read();
    assert.equal(waiting.value('docwright_ingest_staged_views'), 7);
    const oldest = waiting.value('docwright_ingest_staged_oldest_seconds')!;
    assert.ok(oldest >= 90 && oldest < 90 + 600, `oldest staged ${oldest} s`);

    await mergeStagedViews(db());
    clock += 6000;
    assert.equal((await read()).value('docwright_ingest_staged_views'), 0);
  });

  test('a database that does not answer: database_up 0 and no job gauges, not a failed scrape', async () => {
    const broken: Database = {
      ...db(),
      query: async () => {
        throw new Error('connection refused');
      },
    };
    const metrics = createMetrics();
    addDatabaseGauges(metrics, broken);
    const read = parseExposition(await metrics.registry.metrics());
    assert.equal(read.value('docwright_database_up'), 0);
    assert.deepEqual(read.matching('docwright_jobs'), []);
    assert.deepEqual(read.matching('docwright_job_queue_depth'), []);

    const hanging: Database = { ...db(), query: () => new Promise(() => {}) };
    const slow = createMetrics();
    addDatabaseGauges(slow, hanging, { timeoutMs: 50 });
    assert.equal(parseExposition(await slow.registry.metrics()).value('docwright_database_up'), 0);
  });

  test('ingestion: records by outcome and drops by reason, as the answers said; group commits', async () => {
    const seeded = await seedProject(db(), { settings: { allowedOrigins: [ORIGIN] } });
    const answers: { accepted: number; dropped: Record<string, number>; rejected: unknown[] }[] = [];
    for (const batch of [
      [
        { path: '/guide', userAgent: CHROME },
        { path: '/guide', userAgent: GPTBOT },
        { path: '/style.css', userAgent: CHROME },
        { path: 17 },
      ],
      [
        { path: '/api', userAgent: CHROME },
        { path: '/api', userAgent: CHROME, method: 'POST' },
      ],
    ]) {
      const res = await postRecords(app, seeded.project.id, seeded.ingestKey, batch);
      assert.equal(res.statusCode, 202, res.body);
      answers.push(res.json());
    }
    const collect = (path: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/analytics/${seeded.project.id}/collect`,
        headers: { origin: ORIGIN, 'user-agent': CHROME, 'content-type': 'application/json' },
        payload: { path },
      });
    assert.equal((await collect('/guide')).statusCode, 202);
    assert.equal((await collect('/logo.png')).json().dropped, 'asset');

    const { metrics } = await scrape(app);
    const records = (source: string, outcome: string) =>
      metrics.value('docwright_ingest_records_total', { source, outcome }) ?? 0;
    const sum = (pick: (a: (typeof answers)[number]) => number) => answers.reduce((n, a) => n + pick(a), 0);
    const accepted = sum((a) => a.accepted);
    assert.equal(accepted, 3);
    // Earlier tests of this file sent none; this one's answers are the whole count.
    assert.equal(records('api', 'accepted'), accepted);
    assert.equal(
      records('api', 'rejected'),
      sum((a) => a.rejected.length),
    );
    const dropped: Record<string, number> = {};
    for (const a of answers)
      for (const [k, v] of Object.entries(a.dropped)) dropped[k] = (dropped[k] ?? 0) + v;
    assert.deepEqual(Object.keys(dropped).sort(), ['asset', 'method_not_counted']);
    for (const [reason, n] of Object.entries(dropped)) {
      assert.equal(metrics.value('docwright_ingest_dropped_total', { source: 'api', reason }), n);
    }
    assert.equal(records('api', 'dropped'), 2);
    assert.equal(records('script', 'accepted'), 1);
    assert.equal(metrics.value('docwright_ingest_dropped_total', { source: 'script', reason: 'asset' }), 1);

    // Every accepted view went through a group commit of its writer.
    assert.equal(metrics.value('docwright_ingest_flush_views_sum', { writer: 'api' }), accepted);
    assert.equal(metrics.value('docwright_ingest_flush_views_sum', { writer: 'script' }), 1);
    const flushes = metrics.value('docwright_ingest_flush_duration_seconds_count', {
      writer: 'api',
      result: 'committed',
    })!;
    assert.ok(flushes >= 1 && flushes <= 2, `${flushes} commits for two requests`);
    assert.equal(metrics.value('docwright_ingest_flush_requests_sum', { writer: 'api' }), 2);
  });

  test('a worker adds each outcome with its usage, and its running jobs while they run', async () => {
    const seeded = await seedProject(db());
    const metrics = createMetrics();
    const results: JobRunResult[] = [
      {
        status: 'completed',
        prLink: 'https://github.com/example/docs/pull/1',
        branch: 'docwright/a',
        summary: 'done',
        stopReason: 'finish',
        usage: { inputTokens: 1200, outputTokens: 300, steps: 4 },
      },
      {
        status: 'failed',
        code: 'pr_failed',
        message: 'The pull request could not be opened.',
        usage: { inputTokens: 800, outputTokens: 100, steps: 3 },
      },
    ];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const worker = new JobWorker({
      db: db(),
      logger: createLogger('silent'),
      concurrency: 2,
      leaseMs: 30_000,
      maxAttempts: 2,
      observer: jobWorkerObserver(metrics),
      runner: async () => {
        const result = results[started++]!;
        await gate;
        return result;
      },
    });
    trackWorker(metrics, worker);
    // Only this project's jobs: earlier tests left active jobs behind, which would be claimed too.
    await db().query(`UPDATE jobs SET status = 'archived' WHERE status = 'active'`);
    const fresh = await appOn(db());
    try {
      await createJob(fresh, seeded.project.id, seeded.adminKey);
      await createJob(fresh, seeded.project.id, seeded.adminKey);
    } finally {
      await fresh.close();
    }
    await worker.start();
    try {
      await until(() => started === 2, 'both jobs to start');
      let read = parseExposition(await metrics.registry.metrics());
      assert.equal(read.value('docwright_worker_running_jobs'), 2);
      assert.deepEqual(read.matching('docwright_jobs_finished_total'), []);
      release();
      await until(() => worker.activeJobIds.length === 0, 'both jobs to end');
      read = parseExposition(await metrics.registry.metrics());
      assert.equal(read.value('docwright_worker_running_jobs'), 0);
      assert.equal(read.value('docwright_jobs_finished_total', { status: 'completed', code: '' }), 1);
      assert.equal(read.value('docwright_jobs_finished_total', { status: 'failed', code: 'pr_failed' }), 1);
      assert.equal(read.value('docwright_agent_steps_total'), 7);
      assert.equal(read.value('docwright_agent_tokens_total', { kind: 'input' }), 2000);
      assert.equal(read.value('docwright_agent_tokens_total', { kind: 'output' }), 400);
    } finally {
      release();
      await worker.stop(0);
    }
  });
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

await forEachBackend('metrics token', ({ db }) => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let app: App;
  before(async () => {
    app = await appOn(db(), { metricsToken: TOKEN });
  });
  after(() => app.close());

  describe('with DOCWRIGHT_METRICS_TOKEN set', () => {
    test('no token or a wrong one: 401 metrics_token_required, with nothing of the metrics', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer wrong-token-0123456789' },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Basic ${TOKEN}` },
      ]) {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'metrics_token_required');
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
        assert.ok(!res.body.includes('docwright_http'));
        assert.ok(!res.body.includes(TOKEN));
      }
    });

    test('the right token: 200 with the metrics; /healthz and /readyz stay open', async () => {
      const { metrics } = await scrape(app, { authorization: `Bearer ${TOKEN}` });
      assert.equal(metrics.types.get('docwright_jobs'), 'gauge');
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
    });
  });
});

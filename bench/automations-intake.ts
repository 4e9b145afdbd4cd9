// Automations: how fast a code host's webhook becomes a claimed job, and how many signed
// deliveries the intake takes per second, on PostgreSQL, over real HTTP on 127.0.0.1.
//
// - Latency: a signed GitHub pull_request (merged) delivery is POSTed to
//   /v2/automations/{projectId}/hooks/github → intake queues a run (one transaction, NOTIFY) →
//   the automation worker claims it and creates the job (NOTIFY) → the job worker claims the job
//   and calls its runner, which records the time. p50 and p99 over --latency deliveries sent one
//   after another. Target: p50 < 150 ms. There is no baseline to divide by: the ratio printed is
//   against the target.
// - Throughput: --deliveries signed deliveries sent --concurrency at a time, a fifth of them
//   redeliveries (same delivery id) and a tenth the same merge told again under a new id. The
//   automation worker is stopped meanwhile, so intake alone is measured; afterwards every answer
//   must have been 2xx and the runs must be exactly one per distinct merge. Baseline: a bare
//   Fastify route in the same process that reads the raw body and verifies the same signature
//   with @octokit/webhooks, driven by the same client. Target: 500 deliveries/s sustained.
//
// Run: node bench/automations-intake.ts [--latency 200] [--deliveries 3000] [--concurrency 32]
// (needs PostgreSQL at TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhooks } from '@octokit/webhooks';
import Fastify from 'fastify';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { AutomationWorker } from '../src/modules/automations/index.ts';
import { JobWorker } from '../src/modules/jobs/index.ts';
import { setProjectSecret } from '../src/modules/projects/index.ts';
import { createLogger } from '../src/util/logger.ts';
import { bearer, createTestApp, seedProject } from '../test/helpers/app.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';
import { githubDelivery } from '../test/stand-ins/code-host-webhooks.ts';
import { GitHubFake } from '../test/stand-ins/github-fake.ts';
import { figureLine, percentile } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    latency: { type: 'string', default: '200' },
    deliveries: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '32' },
  },
});
const LATENCY_SAMPLES = Number(args.latency);
const DELIVERIES = Number(args.deliveries);
const CONCURRENCY = Number(args.concurrency);
const SECRET = `bench-${randomBytes(16).toString('hex')}`;
const log = (line: string) => console.log(line);

// A fresh database, with the pool size docwright uses (DATABASE_URL's default).
const created_db = await createPostgresDatabase();
const db = await openPostgres(created_db.url);
await migrate(db);
const serverKey = randomBytes(32);
const silent = createLogger('silent');
const app = await createTestApp(db, { secretKey: serverKey });
await app.listen({ host: '127.0.0.1', port: 0 });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const seeded = await seedProject(db, { model: 'openai:gpt-bench' });
await setProjectSecret(db, serverKey, seeded.project.id, 'codeHostWebhookSecret', SECRET);
const hookUrl = `${baseUrl}/v2/automations/${seeded.project.id}/hooks/github`;

const created = await app.inject({
  method: 'POST',
  url: `/v2/automations/${seeded.project.id}`,
  headers: { ...bearer(seeded.adminKey), 'content-type': 'application/json' },
  payload: JSON.stringify({
    name: 'bench',
    trigger: { type: 'code_change', host: 'github', repository: 'acme/engine' },
    promptTemplate: 'marker {{event.title}}',
    limits: { maxOpenPullRequests: 100, dailyRunCap: 1000 },
  }),
});
const automationId = created.json().id as string;

// Payloads built by the GitHub fake (the shape GitHub sends), one per merge.
const github = new GitHubFake();
await github.start();
github.addRepo({ owner: 'acme', name: 'engine' });
const merge = (title: string) =>
  github.mergeNewPull('acme', 'engine', {
    title,
    body: 'bench',
    head: title,
    mergeCommitSha: randomBytes(20).toString('hex'),
  });

// The job worker's runner records when each job was claimed, and ends it at once.
const claimed = new Map<string, number>();
const waiting = new Map<string, () => void>();
const jobWorker = new JobWorker({
  db,
  logger: silent,
  concurrency: 4,
  leaseMs: 30_000,
  maxAttempts: 3,
  runner: async (input) => {
    const title = input.prompts[0]!.match(/marker (\S+)/)?.[1] ?? '';
    claimed.set(title, performance.now());
    waiting.get(title)?.();
    return { status: 'completed', prLink: null, branch: null, summary: null, stopReason: null, usage: null };
  },
});
const automationWorker = new AutomationWorker({
  db,
  logger: silent,
  jobs: { jobRateLimitPerHour: 1_000_000, defaultModel: null },
});
await jobWorker.start();
await automationWorker.start();

async function post(
  url: string,
  delivery: { headers: Record<string, string>; body: string },
): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  await res.arrayBuffer();
  return res.status;
}

// Latency ---------------------------------------------------------------------------------------
const latencies: number[] = [];
for (let i = 0; i < LATENCY_SAMPLES + 10; i++) {
  const title = `lat-${i}`;
  const delivery = await githubDelivery(SECRET, 'pull_request', merge(title));
  const sent = performance.now();
  const status = await post(hookUrl, delivery);
  if (status !== 202) throw new Error(`latency delivery ${i} answered ${status}`);
  if (!claimed.has(title)) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`job for ${title} was not claimed within 10 s`)),
        10_000,
      );
      waiting.set(title, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  if (i >= 10) latencies.push(claimed.get(title)! - sent); // the first ten warm up
}
log(
  `profile: webhook → job claimed p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length}`,
);

// Throughput ------------------------------------------------------------------------------------
await automationWorker.stop();
const distinct = Math.round(DELIVERIES * 0.7);
const merges = Array.from({ length: distinct }, (_, i) => merge(`tp-${i}`));
const deliveries: { headers: Record<string, string>; body: string }[] = [];
for (const payload of merges) deliveries.push(await githubDelivery(SECRET, 'pull_request', payload));
while (deliveries.length < DELIVERIES) {
  const k = deliveries.length;
  // Two redeliveries (same id) for each merge told again under a new id.
  deliveries.push(
    k % 3 === 2
      ? await githubDelivery(SECRET, 'pull_request', merges[k % distinct]!, randomUUID())
      : deliveries[k % distinct]!,
  );
}

async function drive(url: string, list: typeof deliveries): Promise<{ perSecond: number; failures: number }> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < list.length) {
        const status = await post(url, list[next++]!);
        if (status < 200 || status >= 300) failures++;
      }
    }),
  );
  return { perSecond: list.length / ((performance.now() - started) / 1000), failures };
}

// The baseline: the same signatures verified by @octokit/webhooks on a bare route, nothing stored.
const bare = Fastify();
bare.removeContentTypeParser('application/json');
bare.addContentTypeParser(
  'application/json',
  { parseAs: 'string', bodyLimit: 25 * 1024 * 1024 },
  (_r, body, done) => done(null, body),
);
const verifier = new Webhooks({ secret: SECRET });
bare.post('/hook', async (request, reply) => {
  const ok = await verifier.verify(request.body as string, request.headers['x-hub-signature-256'] as string);
  return reply.code(ok ? 200 : 401).send({ ok });
});
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/hook`;

await drive(bareUrl, deliveries.slice(0, 300)); // warm-up
const baseline = await drive(bareUrl, deliveries);
const intake = await drive(hookUrl, deliveries);
const runs = await db.query<{ count: number }>(
  'SELECT count(*)::int AS count FROM automation_runs WHERE automation_id = $1',
  [automationId],
);
const expectedRuns = LATENCY_SAMPLES + 10 + distinct;
log(
  `profile: ${DELIVERIES} deliveries (${distinct} distinct merges), ${CONCURRENCY} at a time: docwright ${intake.perSecond.toFixed(0)}/s with ${intake.failures} non-2xx; bare verify ${baseline.perSecond.toFixed(0)}/s; runs ${runs[0]!.count} (expected ${expectedRuns})`,
);
if (intake.failures > 0 || runs[0]!.count !== expectedRuns) {
  throw new Error('intake lost or duplicated deliveries');
}

log(figureLine('automations_webhook_to_job_claimed_p50', percentile(latencies, 50), 'ms', 150));
log(figureLine('automations_webhook_to_job_claimed_p99', percentile(latencies, 99), 'ms', null));
log(figureLine('automations_intake_throughput', intake.perSecond, 'deliveries/s', baseline.perSecond));
log(figureLine('automations_intake_vs_target', intake.perSecond, 'deliveries/s', 500));

await bare.close();
await jobWorker.stop(0);
await app.close();
await github.stop();
await db.close();
await created_db.drop();

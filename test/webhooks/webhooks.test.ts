// Webhooks end to end on both backends: job events become deliveries in the same transaction,
// the dispatcher POSTs them over real HTTP to a local receiver, the test checks each signature
// with its own HMAC (not docwright's code), and failures are retried, given up and recorded.
import assert from 'node:assert/strict';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { archiveJob, cancelJob, createJob, followUpJob, getJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { updateProject } from '../../src/modules/projects/service.ts';
import { WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/modules/webhooks/dispatcher.ts';
import { claimDueDeliveries, type DeliveryRow } from '../../src/modules/webhooks/queries.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../stand-ins/webhook-receiver.ts';

const serviceConfig = { jobRateLimitPerHour: 10_000, defaultModel: 'openai:gpt-test' };
const SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const SERVER_KEY = randomBytes(32);

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Checks a docwright-signature header the way docs/webhooks.md tells receivers to. */
function signatureIsValid(secret: string, header: string | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  const given = Buffer.from(match[2]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

await forEachBackend('webhooks', ({ db }) => {
  // Nested, so that its after() (stopping the worker and servers) runs before the database closes.
  describe('deliveries to a local receiver', () => {
    let receiver: WebhookReceiver;
    const logs: string[] = [];
    const logger = createLogger('debug', { write: (line: string) => void logs.push(line) });
    const dispatchers: WebhookDispatcher[] = [];
    let worker: JobWorker;
    const results = new Map<
      string,
      (input: Parameters<ConstructorParameters<typeof JobWorker>[0]['runner']>[0]) => Promise<JobRunResult>
    >();

    before(async () => {
      receiver = await startWebhookReceiver();
      worker = new JobWorker({
        db: db(),
        logger: createLogger('silent'),
        concurrency: 4,
        leaseMs: 5000,
        maxAttempts: 3,
        pollIntervalMs: 60_000,
        runner: async (input) => {
          const script = results.get(input.prompts.at(-1)!);
          if (script) return script(input);
          // Unscripted jobs run until cancelled: the tests end them with cancelJob (job.failed).
          await untilAborted(input.signal);
          return {
            status: 'completed',
            prLink: null,
            branch: null,
            summary: null,
            stopReason: null,
            usage: null,
          };
        },
      });
      await worker.start();
    });
    after(async () => {
      await Promise.all(dispatchers.map((d) => d.stop()));
      await worker.stop(0);
      await receiver.close();
    });

    /** Starts a dispatcher; unless alongside, the ones still running stop first (each test sets its own). */
    const startDispatcher = async (options: Partial<WebhookDispatcherOptions> = {}, alongside = false) => {
      if (!alongside) for (const d of dispatchers) await d.stop();
      const dispatcher = new WebhookDispatcher({
        db: db(),
        serverKey: SERVER_KEY,
        logger,
        allowPrivateAddresses: true,
        timeoutMs: 2000,
        retryDelaysMs: [20, 20, 20, 20, 20],
        pollIntervalMs: 200,
        ...options,
      });
      dispatchers.push(dispatcher);
      await dispatcher.start();
      return dispatcher;
    };
    /** A project whose webhooks go to the receiver under a path of its own. */
    const webhookProject = async (path: string, options: { secret?: boolean; url?: string } = {}) => {
      const { project } = await seedProject(db());
      await updateProject(
        db(),
        project.id,
        {
          settings: { webhookUrl: options.url ?? `${receiver.origin}${path}?token=abc` },
        },
        TEST_REPOSITORIES,
      );
      if (options.secret !== false) {
        await setProjectSecret(db(), SERVER_KEY, project.id, 'webhookSecret', SECRET);
      }
      return project;
    };
    const newJob = async (projectId: string, prompt: string) =>
      (await createJob(db() as Database, serviceConfig, { projectId, prompt, idempotencyKey: null })).job;
    const deliveries = (projectId: string) =>
      db().query<DeliveryRow>(
        'SELECT * FROM webhook_deliveries WHERE project_id = $1 ORDER BY created_at, id',
        [projectId],
      );
    const receivedAt = (path: string) => receiver.received.filter((r) => r.path.startsWith(path));
    const body = (r: ReceivedWebhook) => JSON.parse(r.body);

    test('a run that opens a pull request and completes sends pull_request.opened then job.completed, signed', async () => {
      const project = await webhookProject('/run');
      results.set('open a pr', async (input) => {
        await input.event('pull_request', {
          url: 'https://github.com/example/docs/pull/12',
          number: 12,
          reused: false,
        });
        return {
          status: 'completed',
          prLink: 'https://github.com/example/docs/pull/12',
          branch: 'docwright/x',
          summary: 'Fixed it',
          stopReason: 'finish',
          usage: { inputTokens: 3, outputTokens: 4, steps: 1 },
        };
      });
      await startDispatcher();
      const job = await newJob(project.id, 'open a pr');
      await waitFor('two deliveries', () => receivedAt('/run').length === 2);
      await waitFor('both recorded', async () => {
        const rows = await deliveries(project.id);
        return rows.length === 2 && rows.every((d) => d.status === 'delivered');
      });
      const [opened, completed] = receivedAt('/run');

      for (const r of [opened!, completed!]) {
        assert.equal(r.method, 'POST');
        assert.equal(r.path, '/run?token=abc');
        assert.equal(r.headers['content-type'], 'application/json');
        assert.ok(
          signatureIsValid(SECRET, r.headers['docwright-signature'] as string, r.body),
          'valid signature',
        );
        const t = Number(/^t=(\d+)/.exec(r.headers['docwright-signature'] as string)![1]);
        assert.ok(Math.abs(t - Date.now() / 1000) < 300, 'the timestamp is now');
        assert.equal(body(r).id, r.headers['docwright-delivery']);
        assert.equal(body(r).type, r.headers['docwright-event']);
        assert.equal(body(r).projectId, project.id);
        assert.equal(body(r).job.id, job.id);
        assert.match(body(r).id, /^whd_[0-9a-f]{32}$/);
        // The check can fail: the same header does not fit another body or another secret.
        assert.equal(
          signatureIsValid(SECRET, r.headers['docwright-signature'] as string, `${r.body} `),
          false,
        );
        assert.equal(
          signatureIsValid(`${SECRET}x`, r.headers['docwright-signature'] as string, r.body),
          false,
        );
      }
      assert.equal(body(opened!).type, 'pull_request.opened');
      assert.deepEqual(body(opened!).pullRequest, {
        url: 'https://github.com/example/docs/pull/12',
        number: 12,
      });
      assert.equal(body(opened!).job.status, 'active', 'the job as it was when the pull request opened');
      assert.equal(body(completed!).type, 'job.completed');
      assert.deepEqual(
        body(completed!).job,
        await getJob(db(), project.id, job.id),
        'the job as the API shows it',
      );
      assert.equal(body(completed!).job.prLink, 'https://github.com/example/docs/pull/12');
      assert.equal('pullRequest' in body(completed!), false);

      const rows = await deliveries(project.id);
      assert.deepEqual(
        rows.map((d) => [d.type, d.status, d.attempts, d.last_response_status, d.next_attempt_at]),
        [
          ['pull_request.opened', 'delivered', 1, 204, null],
          ['job.completed', 'delivered', 1, 204, null],
        ],
      );
      assert.ok(rows.every((d) => d.delivered_at instanceof Date && d.last_error === null));
    });

    test('cancel sends job.failed and archive sends job.archived, each with the job at that moment', async () => {
      const project = await webhookProject('/cancel');
      await startDispatcher();
      const job = await newJob(project.id, 'wait for cancel');
      await waitFor('the run to start', () => worker.activeJobIds.includes(job.id));
      await cancelJob(db(), project.id, job.id);
      await waitFor('job.failed', () => receivedAt('/cancel').length === 1);
      await waitFor('the worker to let go', () => !worker.activeJobIds.includes(job.id));
      await archiveJob(db(), project.id, job.id);
      await waitFor('job.archived', () => receivedAt('/cancel').length === 2);
      const [failed, archived] = receivedAt('/cancel').map(body);
      assert.equal(failed.type, 'job.failed');
      assert.equal(failed.job.status, 'failed');
      assert.deepEqual(failed.job.error, { code: 'cancelled', message: 'Cancelled by a client request.' });
      assert.equal(archived.type, 'job.archived');
      assert.equal(archived.job.status, 'archived');
      assert.ok(archived.job.archivedAt);
    });

    test('a follow-up that reuses the pull request does not announce it again', async () => {
      const project = await webhookProject('/reuse');
      const run =
        (reused: boolean) => async (input: { event(type: string, data?: object): Promise<void> }) => {
          await input.event('pull_request', {
            url: 'https://github.com/example/docs/pull/3',
            number: 3,
            reused,
          });
          return {
            status: 'completed' as const,
            prLink: 'https://github.com/example/docs/pull/3',
            branch: 'b',
            summary: null,
            stopReason: null,
            usage: null,
          };
        };
      results.set('first', run(false));
      results.set('second', run(true));
      await startDispatcher();
      const job = await newJob(project.id, 'first');
      await waitFor('first run done', () => receivedAt('/reuse').length === 2);
      await followUpJob(db(), serviceConfig, { projectId: project.id, id: job.id, prompt: 'second' });
      worker.nudge();
      await waitFor('second completion', async () => (await deliveries(project.id)).length === 3);
      await waitFor('all delivered', async () =>
        (await deliveries(project.id)).every((d) => d.status === 'delivered'),
      );
      assert.deepEqual(
        (await deliveries(project.id)).map((d) => d.type),
        ['pull_request.opened', 'job.completed', 'job.completed'],
      );
    });

    test('a 500 is retried with the same delivery id and body, and recorded until it succeeds', async () => {
      const project = await webhookProject('/retry');
      receiver.script('/retry', { status: 500, body: 'receiver exploded\nstack trace...' });
      const dispatcher = await startDispatcher({ retryDelaysMs: [60_000, 60_000] });
      const job = await newJob(project.id, 'never mind');
      await cancelJob(db(), project.id, job.id);
      await waitFor(
        'the first attempt',
        async () => (await deliveries(project.id))[0]?.last_response_status === 500,
      );
      const [waiting] = await deliveries(project.id);
      assert.equal(waiting!.status, 'pending');
      assert.equal(waiting!.attempts, 1);
      assert.equal(waiting!.last_error, 'the receiver answered 500');
      assert.equal(waiting!.last_response_snippet, 'receiver exploded stack trace...');
      assert.ok(
        waiting!.next_attempt_at!.getTime() > waiting!.last_attempt_at!.getTime() + 30_000,
        'backs off',
      );

      // Time passes (the retry falls due) without waiting a minute in a test.
      await db().query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [waiting!.id]);
      dispatcher.wake();
      await waitFor('delivery', async () => (await deliveries(project.id))[0]?.status === 'delivered');
      const [done] = await deliveries(project.id);
      assert.equal(done!.attempts, 2);
      assert.equal(done!.last_response_status, 204);
      assert.equal(done!.last_error, null);
      const attempts = receivedAt('/retry');
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0]!.body, attempts[1]!.body, 'the same body');
      assert.equal(attempts[0]!.headers['docwright-delivery'], attempts[1]!.headers['docwright-delivery']);
      assert.ok(
        attempts.every((a) => signatureIsValid(SECRET, a.headers['docwright-signature'] as string, a.body)),
      );
    });

    test('after the last attempt the delivery is given up and recorded as failed', async () => {
      const project = await webhookProject('/down');
      receiver.script('/down', { status: 503 }, { status: 503 }, { status: 503 });
      await startDispatcher({ retryDelaysMs: [10, 10] });
      const job = await newJob(project.id, 'x');
      await cancelJob(db(), project.id, job.id);
      await waitFor('give up', async () => (await deliveries(project.id))[0]?.status === 'failed');
      const [row] = await deliveries(project.id);
      assert.equal(row!.attempts, 3);
      assert.equal(row!.next_attempt_at, null);
      assert.equal(row!.delivered_at, null);
      assert.equal(row!.last_response_status, 503);
      assert.equal(receivedAt('/down').length, 3, 'three attempts, no more');
      assert.ok(logs.some((l) => l.includes(row!.id) && l.includes('webhook given up')));
    });

    test('a delivery pending when a dispatcher stops, or claimed by one that died, is sent by the next one', async () => {
      const project = await webhookProject('/handover');
      // No dispatcher sees these: two jobs end while none runs.
      for (const d of dispatchers) await d.stop();
      const a = await newJob(project.id, 'a');
      const b = await newJob(project.id, 'b');
      await cancelJob(db(), project.id, a.id);
      await cancelJob(db(), project.id, b.id);
      const pending = await deliveries(project.id);
      assert.deepEqual(
        pending.map((d) => d.status),
        ['pending', 'pending'],
      );
      // A dispatcher claims one and dies before answering: its 50 ms lease runs out.
      const [claimed] = await claimDueDeliveries(db(), 1, 50);
      assert.ok(claimed);
      await startDispatcher({ pollIntervalMs: 100 });
      await waitFor('both delivered', async () =>
        (await deliveries(project.id)).every((d) => d.status === 'delivered'),
      );
      const rows = await deliveries(project.id);
      assert.equal(rows.find((d) => d.id === claimed.id)!.attempts, 2, 'the dead claim counted as a try');
      assert.equal(new Set(receivedAt('/handover').map((r) => r.headers['docwright-delivery'])).size, 2);
    });

    test('two dispatchers share the deliveries: each is sent exactly once', async () => {
      const project = await webhookProject('/shared');
      await startDispatcher();
      await startDispatcher({}, true);
      const jobs = [];
      for (let i = 0; i < 15; i++) jobs.push(await newJob(project.id, `shared ${i}`));
      await Promise.all(jobs.map((j) => cancelJob(db(), project.id, j.id)));
      await waitFor('all delivered', async () => {
        const rows = await deliveries(project.id);
        return rows.length === 15 && rows.every((d) => d.status === 'delivered');
      });
      const ids = receivedAt('/shared').map((r) => r.headers['docwright-delivery']);
      assert.equal(ids.length, 15);
      assert.equal(new Set(ids).size, 15);
    });

    test('loopback is refused unless private addresses are allowed: nothing is sent, the reason is recorded', async () => {
      const port = new URL(receiver.origin).port;
      const literal = await webhookProject('', { url: `http://127.0.0.1:${port}/ssrf-literal` });
      const named = await webhookProject('', { url: `http://localhost:${port}/ssrf-name` });
      const mapped = await webhookProject('', { url: `http://[::ffff:127.0.0.1]:${port}/ssrf-mapped` });
      await startDispatcher({ allowPrivateAddresses: false, retryDelaysMs: [] });
      for (const project of [literal, named, mapped]) {
        const job = await newJob(project.id, 'ssrf');
        await cancelJob(db(), project.id, job.id);
      }
      for (const project of [literal, named, mapped]) {
        await waitFor('refusal', async () => (await deliveries(project.id))[0]?.status === 'failed');
        const [row] = await deliveries(project.id);
        assert.match(row!.last_error ?? '', /loopback, private, link-local or other special-purpose address/);
        assert.equal(row!.last_response_status, null);
      }
      assert.equal(receiver.received.filter((r) => r.path.startsWith('/ssrf')).length, 0);
    });

    test('redirects are not followed, and a receiver that never answers times out', async () => {
      const other = await startWebhookReceiver();
      try {
        const redirected = await webhookProject('/moved');
        receiver.script('/moved', { redirectTo: `${other.origin}/elsewhere`, status: 307 });
        await startDispatcher({ retryDelaysMs: [] });
        const job = await newJob(redirected.id, 'r');
        await cancelJob(db(), redirected.id, job.id);
        await waitFor(
          'redirect recorded',
          async () => (await deliveries(redirected.id))[0]?.status === 'failed',
        );
        const [row] = await deliveries(redirected.id);
        assert.equal(row!.last_response_status, 307);
        assert.match(row!.last_error ?? '', /do not follow redirects/);
        assert.match(row!.last_error ?? '', new RegExp(`to 127\\.0\\.0\\.1:${new URL(other.origin).port}`));
        assert.equal(other.received.length, 0);
      } finally {
        await other.close();
      }
      for (const d of dispatchers) await d.stop();
      const slow = await webhookProject('/slow');
      receiver.script('/slow', { hang: true });
      await startDispatcher({ retryDelaysMs: [], timeoutMs: 300 });
      const job = await newJob(slow.id, 's');
      await cancelJob(db(), slow.id, job.id);
      await waitFor('timeout recorded', async () => (await deliveries(slow.id))[0]?.status === 'failed');
      assert.equal((await deliveries(slow.id))[0]!.last_error, 'no answer within 0.3 s');
    });

    test('without a webhookSecret deliveries wait and say why; without a webhookUrl there are none', async () => {
      for (const d of dispatchers) await d.stop();
      const unsigned = await webhookProject('/unsigned', { secret: false });
      const dispatcher = await startDispatcher({ retryDelaysMs: [60_000] });
      const job = await newJob(unsigned.id, 'u');
      await cancelJob(db(), unsigned.id, job.id);
      await waitFor('the first attempt', async () => (await deliveries(unsigned.id))[0]?.last_error);
      const [row] = await deliveries(unsigned.id);
      assert.equal(row!.status, 'pending');
      assert.match(row!.last_error ?? '', /no webhookSecret/);
      assert.equal(receivedAt('/unsigned').length, 0, 'nothing unsigned is sent');
      // Once the secret is set, the retry goes out signed.
      await setProjectSecret(db(), SERVER_KEY, unsigned.id, 'webhookSecret', SECRET);
      await db().query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [row!.id]);
      dispatcher.wake();
      await waitFor('delivery', () => receivedAt('/unsigned').length === 1);

      const { project: silent } = await seedProject(db());
      const quiet = await newJob(silent.id, 'q');
      await cancelJob(db(), silent.id, quiet.id);
      assert.equal((await deliveries(silent.id)).length, 0);

      // A URL removed while a delivery waits: the delivery is dropped, saying so.
      const removed = await webhookProject('/removed');
      for (const d of dispatchers) await d.stop();
      const gone = await newJob(removed.id, 'g');
      await cancelJob(db(), removed.id, gone.id);
      await updateProject(db(), removed.id, { settings: { webhookUrl: null } as never }, TEST_REPOSITORIES);
      await startDispatcher();
      await waitFor('dropped', async () => (await deliveries(removed.id))[0]?.status === 'failed');
      assert.equal((await deliveries(removed.id))[0]!.last_error, "the project's webhookUrl was removed");
    });

    test('the secret appears in no delivery row, no job event and no log line', async () => {
      const rows = await db().query<{ t: string }>(
        'SELECT webhook_deliveries::text AS t FROM webhook_deliveries',
      );
      assert.ok(rows.length > 10, 'the earlier tests left deliveries to inspect');
      for (const r of rows) assert.equal(r.t.includes(SECRET), false);
      const events = await db().query<{ t: string }>('SELECT job_events::text AS t FROM job_events');
      for (const e of events) assert.equal(e.t.includes(SECRET), false);
      const secrets = await db().query<{ t: string }>(
        'SELECT project_secrets::text AS t FROM project_secrets',
      );
      for (const s of secrets) assert.equal(s.t.includes(SECRET), false, 'stored sealed');
      assert.ok(logs.length > 10);
      for (const line of logs) {
        assert.equal(line.includes(SECRET), false, line);
        assert.equal(
          line.includes('token=abc'),
          false,
          'the URL query (often a receiver token) is not logged',
        );
      }
    });

    test('webhookUrl must be an http(s) URL without credentials', async () => {
      const { project } = await seedProject(db());
      for (const bad of [
        'ftp://hooks.example.com/x',
        'https://user:pw@hooks.example.com/x',
        'hooks.example.com',
        'https://',
        'https://a b',
      ]) {
        await assert.rejects(
          updateProject(db(), project.id, { settings: { webhookUrl: bad } }, TEST_REPOSITORIES),
          (error: Error & { code?: string }) => {
            assert.equal(error.code, 'invalid_project', bad);
            assert.match(error.message, /webhookUrl/);
            return true;
          },
        );
      }
      const ok = await updateProject(
        db(),
        project.id,
        {
          settings: { webhookUrl: 'https://hooks.example.com/docwright?key=1' },
        },
        TEST_REPOSITORIES,
      );
      assert.equal(ok.settings.webhookUrl, 'https://hooks.example.com/docwright?key=1');
    });
  });
});

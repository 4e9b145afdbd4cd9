// The job events stream over real HTTP on both backends: history then live events then close,
// resume with Last-Event-ID, the JSON fallback, errors, cleanup, one shared listener. Job state
// is driven by the job service and by the real worker with a scripted runner. The stream is read
// with eventsource-parser (the SSE parser the AI SDK uses), not with code written for this test.
import assert from 'node:assert/strict';
import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/http/context.ts';
import { jobEventHub } from '../../src/modules/jobs/events/event-hub.ts';
import { insertEvent } from '../../src/modules/jobs/queries.ts';
import type { JobRunInput, JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { archiveJob, cancelJob, createJob, followUpJob, getJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const serviceConfig = { jobRateLimitPerHour: 10_000, defaultModel: 'openai:gpt-test' };

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

/**
 * An SSE connection read through eventsource-parser, over node:http with a connection of its
 * own (fetch's pool may open spare connections that would hold the server's close open).
 */
class SseClient {
  readonly messages: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  ended = false;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  private readonly response: IncomingMessage;
  readonly finished: Promise<void>;

  private constructor(response: IncomingMessage) {
    this.response = response;
    this.status = response.statusCode ?? 0;
    this.headers = response.headers;
    const parser = createParser({
      onEvent: (message) => this.messages.push(message),
      onComment: (comment) => this.comments.push(comment),
      onRetry: (ms) => {
        this.retry = ms;
      },
    });
    response.setEncoding('utf8');
    this.finished = (async () => {
      try {
        for await (const chunk of response) parser.feed(chunk as string);
      } catch {
        // closed by close()
      }
      this.ended = true;
    })();
  }

  static open(url: string, headers: Record<string, string>): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = get(
        url,
        { headers: { accept: 'text/event-stream', ...headers }, agent: false },
        (response) => resolve(new SseClient(response)),
      );
      request.on('error', reject);
    });
  }

  get types(): string[] {
    return this.messages.map((m) => m.event ?? 'message');
  }

  get ids(): number[] {
    return this.messages.map((m) => Number(m.id));
  }

  until(what: string, predicate: (client: SseClient) => boolean): Promise<true> {
    return waitFor(what, () => predicate(this));
  }

  close(): void {
    this.response.destroy();
  }
}

type Script = (input: JobRunInput) => Promise<JobRunResult>;

await forEachBackend('job events stream', ({ db, backend }) => {
  // Nested, so that its after() (stopping the worker and servers) runs before the database closes.
  describe('over HTTP, with a worker', () => {
    let app: App;
    let baseUrl: string;
    let seeded: Awaited<ReturnType<typeof seedProject>>;
    let worker: JobWorker;
    /** What the scripted runner does, by prompt. */
    const scripts = new Map<string, Script>();

    before(async () => {
      app = await createTestApp(db());
      await app.listen({ port: 0, host: '127.0.0.1' });
      baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      seeded = await seedProject(db());
      worker = new JobWorker({
        db: db(),
        logger: createLogger('silent'),
        concurrency: 4,
        leaseMs: 5000,
        maxAttempts: 3,
        pollIntervalMs: 60_000,
        runner: async (input) => {
          const prompts = input.prompts;
          const script = scripts.get(prompts[prompts.length - 1]!);
          if (!script) throw new Error(`no script for ${prompts.at(-1)}`);
          return script(input);
        },
      });
      await worker.start();
    });
    after(async () => {
      await worker.stop(0);
      await app.close();
    });

    const eventsUrl = (jobId: string, query = '') =>
      `${baseUrl}/v2/agent/${seeded.project.id}/job/${jobId}/events${query}`;
    const newJob = async (prompt: string) =>
      (
        await createJob(db() as Database, serviceConfig, {
          projectId: seeded.project.id,
          prompt,
          idempotencyKey: null,
        })
      ).job;
    const storedEvents = (jobId: string) =>
      db().query<{ id: number; type: string; data: object; created_at: Date }>(
        'SELECT id, type, data, created_at FROM job_events WHERE job_id = $1 ORDER BY id',
        [jobId],
      );
    const completed = (prLink: string | null): JobRunResult => ({
      status: 'completed',
      prLink,
      branch: 'docwright/x',
      summary: 'done',
      stopReason: 'finish',
      usage: { inputTokens: 1, outputTokens: 1, steps: 1 },
    });

    test('history first, then live events as they are stored, then the final event and the end of the stream', async () => {
      const release = Promise.withResolvers<void>();
      scripts.set('live run', async (input) => {
        await input.event('tool_call', { tool: 'read_file', path: 'README.md' });
        await release.promise;
        await input.event('tool_call', { tool: 'edit_file', path: 'README.md' });
        await input.event('pushed', { branch: 'docwright/x' });
        return completed('https://github.com/example/docs/pull/7');
      });
      const job = await newJob('live run');
      await waitFor('the first tool call to be stored', async () =>
        (await storedEvents(job.id)).some((e) => e.type === 'tool_call'),
      );

      const sse = await SseClient.open(eventsUrl(job.id), bearer(seeded.readKey));
      assert.equal(sse.status, 200);
      assert.match(sse.headers['content-type'] ?? '', /^text\/event-stream/);
      assert.equal(sse.headers['cache-control'], 'no-cache, no-transform');
      assert.match(String(sse.headers['x-request-id']), /^req_/);
      await sse.until('history', (c) => c.types.includes('tool_call'));
      assert.deepEqual(sse.types, ['created', 'started', 'tool_call'], 'the stored history comes first');
      assert.equal(sse.ended, false, 'the stream stays open while the job runs');

      release.resolve(); // now the runner stores more events: they arrive live
      await sse.finished;
      assert.deepEqual(sse.types, ['created', 'started', 'tool_call', 'tool_call', 'pushed', 'completed']);
      assert.equal(sse.retry, 2000);

      // Every frame is a stored row: id field = row id, event field = type, data = the event as JSON.
      const rows = await storedEvents(job.id);
      assert.deepEqual(
        sse.messages.map((m) => ({ id: Number(m.id), event: m.event, data: JSON.parse(m.data) })),
        rows.map((r) => ({
          id: r.id,
          event: r.type,
          data: { id: r.id, type: r.type, createdAt: r.created_at.toISOString(), data: r.data },
        })),
      );
      const completedData = JSON.parse(sse.messages.at(-1)!.data);
      assert.equal(completedData.data.prLink, 'https://github.com/example/docs/pull/7');
      const ids = sse.ids;
      assert.ok(
        ids.every((id, i) => i === 0 || id > ids[i - 1]!),
        `ids increase: ${ids.join(',')}`,
      );
    });

    test('Last-Event-ID resumes after the given event; ?after= does too; the header wins over the query', async () => {
      scripts.set('resume run', async (input) => {
        for (const path of ['a.md', 'b.md', 'c.md'])
          await input.event('tool_call', { tool: 'edit_file', path });
        return completed(null);
      });
      const job = await newJob('resume run');
      await waitFor(
        'completion',
        async () => (await getJob(db(), seeded.project.id, job.id)).status === 'completed',
      );
      const rows = await storedEvents(job.id);
      const all = rows.map((r) => r.type);
      assert.deepEqual(all, ['created', 'started', 'tool_call', 'tool_call', 'tool_call', 'completed']);

      const resumed = await SseClient.open(eventsUrl(job.id), {
        ...bearer(seeded.readKey),
        'last-event-id': String(rows[2]!.id),
      });
      await resumed.finished;
      assert.deepEqual(
        resumed.ids,
        rows.slice(3).map((r) => r.id),
      );

      const byQuery = await SseClient.open(
        eventsUrl(job.id, `?after=${rows[4]!.id}`),
        bearer(seeded.readKey),
      );
      await byQuery.finished;
      assert.deepEqual(byQuery.types, ['completed']);

      const headerWins = await SseClient.open(eventsUrl(job.id, `?after=${rows[0]!.id}`), {
        ...bearer(seeded.readKey),
        'last-event-id': String(rows[3]!.id),
      });
      await headerWins.finished;
      assert.deepEqual(
        headerWins.ids,
        rows.slice(4).map((r) => r.id),
      );

      // After the final event there is nothing left: 204 tells EventSource not to reconnect.
      const over = await fetch(eventsUrl(job.id), {
        headers: { ...bearer(seeded.readKey), 'last-event-id': String(rows.at(-1)!.id) },
      });
      assert.equal(over.status, 204);
      assert.equal(await over.text(), '');
    });

    test('a client that drops and reconnects with Last-Event-ID gets exactly the events it missed', async () => {
      const step = Promise.withResolvers<void>();
      const finish = Promise.withResolvers<void>();
      scripts.set('reconnect run', async (input) => {
        await input.event('tool_call', { n: 1 });
        await step.promise;
        await input.event('tool_call', { n: 2 });
        await input.event('tool_call', { n: 3 });
        await finish.promise;
        return completed(null);
      });
      const job = await newJob('reconnect run');
      const first = await SseClient.open(eventsUrl(job.id), bearer(seeded.readKey));
      await first.until('first tool call', (c) => c.types.includes('tool_call'));
      const lastSeen = first.ids.at(-1)!;
      first.close();
      await first.finished;

      step.resolve();
      await waitFor('events while away', async () => (await storedEvents(job.id)).length >= 5);
      const second = await SseClient.open(eventsUrl(job.id), {
        ...bearer(seeded.readKey),
        'last-event-id': String(lastSeen),
      });
      await second.until('missed events', (c) => c.messages.length >= 2);
      finish.resolve();
      await second.finished;
      assert.deepEqual(
        second.messages.map((m) => JSON.parse(m.data).data.n ?? m.event),
        [2, 3, 'completed'],
      );
      assert.ok(second.ids[0]! > lastSeen);
    });

    test('cancel ends a live stream with the failed event; archive ends it with archived', async () => {
      scripts.set('cancel run', async ({ signal }) => {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return completed(null);
      });
      const job = await newJob('cancel run');
      const sse = await SseClient.open(eventsUrl(job.id), bearer(seeded.readKey));
      await sse.until('started', (c) => c.types.includes('started'));
      await cancelJob(db(), seeded.project.id, job.id);
      await sse.finished;
      assert.equal(sse.types.at(-1), 'failed');
      assert.equal(JSON.parse(sse.messages.at(-1)!.data).data.code, 'cancelled');

      await waitFor('the worker to let go', () => !worker.activeJobIds.includes(job.id));
      const lastId = sse.ids.at(-1)!;
      const watcher = await fetch(eventsUrl(job.id), {
        headers: { ...bearer(seeded.readKey), 'last-event-id': String(lastId) },
      });
      assert.equal(watcher.status, 204, 'a failed job with nothing new: no stream');
      await archiveJob(db(), seeded.project.id, job.id);
      const afterArchive = await SseClient.open(eventsUrl(job.id), {
        ...bearer(seeded.readKey),
        'last-event-id': String(lastId),
      });
      await afterArchive.finished;
      assert.deepEqual(afterArchive.types, ['archived']);
    });

    test('a follow-up re-opens a finished job: the stream goes past the earlier end to the new one', async () => {
      const second = Promise.withResolvers<void>();
      scripts.set('first try', async () => ({ status: 'failed', code: 'model_error', message: 'nope' }));
      scripts.set('try again', async (input) => {
        await input.event('tool_call', { again: true });
        await second.promise;
        return completed('https://github.com/example/docs/pull/9');
      });
      const job = await newJob('first try');
      await waitFor(
        'failure',
        async () => (await getJob(db(), seeded.project.id, job.id)).status === 'failed',
      );
      await followUpJob(db(), serviceConfig, {
        projectId: seeded.project.id,
        id: job.id,
        prompt: 'try again',
      });
      worker.nudge();
      const sse = await SseClient.open(eventsUrl(job.id), bearer(seeded.readKey));
      await sse.until('the second run', (c) => c.types.filter((t) => t === 'started').length === 2);
      assert.equal(sse.ended, false, 'the failed event of the first run does not end the stream');
      second.resolve();
      await sse.finished;
      assert.deepEqual(sse.types.slice(0, 3), ['created', 'started', 'failed']);
      assert.deepEqual(sse.types.slice(-2), ['tool_call', 'completed']);
      assert.ok(sse.types.includes('message'));
    });

    test('the JSON fallback: ?format=json or Accept: application/json gives the stored events, paged by after and limit', async () => {
      scripts.set('json run', async (input) => {
        await input.event('tool_call', { tool: 'list_files' });
        return completed(null);
      });
      const job = await newJob('json run');
      await waitFor(
        'completion',
        async () => (await getJob(db(), seeded.project.id, job.id)).status === 'completed',
      );
      const rows = await storedEvents(job.id);
      const expected = rows.map((r) => ({
        id: r.id,
        type: r.type,
        createdAt: r.created_at.toISOString(),
        data: r.data,
      }));

      const byQuery = await app.inject({
        method: 'GET',
        url: eventsUrl(job.id, '?format=json').slice(baseUrl.length),
        headers: bearer(seeded.readKey),
      });
      assert.equal(byQuery.statusCode, 200);
      assert.match(byQuery.headers['content-type'] as string, /^application\/json/);
      assert.deepEqual(byQuery.json(), expected);

      const byAccept = await fetch(eventsUrl(job.id), {
        headers: { ...bearer(seeded.readKey), accept: 'application/json' },
      });
      assert.deepEqual(await byAccept.json(), expected);

      const page = await fetch(eventsUrl(job.id, `?format=json&after=${rows[0]!.id}&limit=2`), {
        headers: bearer(seeded.readKey),
      });
      assert.deepEqual(await page.json(), expected.slice(1, 3));

      // For a running job the JSON answer is a snapshot: it does not wait.
      const hold = Promise.withResolvers<void>();
      scripts.set('json running', async () => {
        await hold.promise;
        return completed(null);
      });
      const running = await newJob('json running');
      // The 'started' event is stored with the claim: once it is there the job is running.
      await waitFor('start', async () => (await storedEvents(running.id)).some((e) => e.type === 'started'));
      const snapshot = await fetch(eventsUrl(running.id, '?format=json'), {
        headers: bearer(seeded.readKey),
      });
      assert.deepEqual(
        ((await snapshot.json()) as { type: string }[]).map((e) => e.type),
        ['created', 'started'],
      );
      hold.resolve();
    });

    test('errors: unknown job 404, another project 403, no key 401, ingest key 403, bad Last-Event-ID and after 400', async () => {
      scripts.set('never runs', async () => completed(null));
      const job = await newJob('never runs');
      const get = (url: string, headers: Record<string, string>) =>
        app.inject({ method: 'GET', url: url.slice(baseUrl.length), headers });

      const unknown = await get(eventsUrl('job_doesnotexist000'), bearer(seeded.readKey));
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'job_not_found');

      const other = await seedProject(db());
      const foreign = await get(eventsUrl(job.id), bearer(other.readKey));
      assert.equal(foreign.statusCode, 403);
      const inOtherProject = await app.inject({
        method: 'GET',
        url: `/v2/agent/${other.project.id}/job/${job.id}/events`,
        headers: bearer(other.readKey),
      });
      assert.equal(inOtherProject.statusCode, 404, "another project's job is not found through this project");

      assert.equal((await get(eventsUrl(job.id), {})).statusCode, 401);
      const ingest = await get(eventsUrl(job.id), bearer(seeded.ingestKey));
      assert.equal(ingest.statusCode, 403);
      assert.equal(ingest.json().code, 'insufficient_scope');

      for (const bad of ['abc', '-1', '1.5', '99999999999999999999']) {
        const res = await get(eventsUrl(job.id), { ...bearer(seeded.readKey), 'last-event-id': bad });
        assert.equal(res.statusCode, 400, bad);
        assert.equal(res.json().code, 'invalid_header');
      }
      for (const bad of ['x', '-3', '1e3']) {
        const res = await get(eventsUrl(job.id, `?after=${bad}`), bearer(seeded.readKey));
        assert.equal(res.statusCode, 400, bad);
        assert.equal(res.json().code, 'invalid_parameter');
      }
      const badFormat = await get(eventsUrl(job.id, '?format=xml'), bearer(seeded.readKey));
      assert.equal(badFormat.statusCode, 400);
      await waitFor(
        'the job to end',
        async () => (await getJob(db(), seeded.project.id, job.id)).status !== 'active',
      );
    });

    test('many streams share one listener; a client that leaves is unsubscribed, and the last one stops the listener', async () => {
      const hold = Promise.withResolvers<void>();
      const prompts = ['share 1', 'share 2', 'share 3'];
      for (const p of prompts) {
        scripts.set(p, async (input) => {
          await hold.promise;
          await input.event('tool_call', { p });
          return completed(null);
        });
      }
      const jobs = await Promise.all(prompts.map((p) => newJob(p)));
      const streams: SseClient[] = [];
      for (let i = 0; i < 12; i++) {
        streams.push(await SseClient.open(eventsUrl(jobs[i % 3]!.id), bearer(seeded.readKey)));
      }
      await Promise.all(streams.map((s) => s.until('created', (c) => c.types.includes('created'))));
      const hub = jobEventHub(db());
      await waitFor('12 subscribers', () => hub.subscriberCount === 12);
      assert.equal(hub.listening, true);
      if (backend === 'postgres') {
        const listeners = await db().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query = 'LISTEN "docwright_job_events"'`,
        );
        assert.equal(listeners[0]!.n, 1, 'one LISTEN connection for all streams');
      }

      // Three clients leave early; the others see their job through to the end.
      for (const s of streams.slice(0, 3)) s.close();
      await waitFor('9 subscribers', () => hub.subscriberCount === 9);
      hold.resolve();
      await Promise.all(streams.slice(3).map((s) => s.finished));
      for (const s of streams.slice(3)) assert.deepEqual(s.types.slice(-2), ['tool_call', 'completed']);
      await waitFor('no subscriber and no listener', () => hub.subscriberCount === 0 && !hub.listening);
      if (backend === 'postgres') {
        await waitFor('the LISTEN connection to close', async () => {
          const rows = await db().query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND query = 'LISTEN "docwright_job_events"'`,
          );
          return rows[0]!.n === 0;
        });
      }
    });

    test('closing the server ends open streams instead of waiting for their jobs', async () => {
      const other = await createTestApp(db());
      await other.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}`;
      const hold = Promise.withResolvers<void>();
      scripts.set('server closes', async () => {
        await hold.promise;
        return completed(null);
      });
      const job = await newJob('server closes');
      const sse = await SseClient.open(
        `${url}/v2/agent/${seeded.project.id}/job/${job.id}/events`,
        bearer(seeded.readKey),
      );
      await sse.until('created', (c) => c.types.includes('created'));
      await other.close();
      await sse.finished;
      assert.equal(sse.types.includes('completed'), false);
      hold.resolve();
    });

    test('events inserted directly (insertEvent) reach an open stream', async () => {
      // A job with no model fails at once; made active again under a lease nobody renews and with
      // its tries used up, no worker touches it: only this test writes its events.
      const noModel = await createJob(
        db() as Database,
        { ...serviceConfig, defaultModel: null },
        {
          projectId: seeded.project.id,
          prompt: 'no model',
          idempotencyKey: null,
        },
      );
      await db().query(
        `UPDATE jobs SET status = 'active', error_code = NULL, attempts = 99, lease_owner = 'test',
                       lease_expires_at = now() + interval '1 hour'
        WHERE id = $1`,
        [noModel.job.id],
      );
      const sse = await SseClient.open(eventsUrl(noModel.job.id), bearer(seeded.readKey));
      await sse.until('history', (c) => c.types.includes('failed'));
      await insertEvent(db(), noModel.job.id, 'tool_call', { path: 'x.md' });
      await sse.until('live event', (c) => c.types.includes('tool_call'));
      await db().transaction(async (tx) => {
        await tx.query("UPDATE jobs SET status = 'completed' WHERE id = $1", [noModel.job.id]);
        await insertEvent(tx, noModel.job.id, 'completed', { prLink: null });
      });
      await sse.finished;
      assert.deepEqual(sse.types, ['created', 'failed', 'tool_call', 'completed']);
    });
  });
});

// The typed client's event stream and waitForJob against a real server and worker; the faults a
// network or load balancer adds (cut streams, 429/503 with Retry-After, an HTML error page, a
// server without the stream route) come from a proxy in front of it (fault-proxy.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DocwrightClient,
  DocwrightError,
  DocwrightTimeoutError,
  type JobEvent,
  NotFoundError,
  ServerError,
} from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { eventually, type LiveServer, PR_LINK_BASE, startLiveServer } from './live-server.ts';

const FAST = { pollIntervalMs: 20, maxPollIntervalMs: 100 };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function collect(events: AsyncIterable<JobEvent>): Promise<JobEvent[]> {
  const all: JobEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

await forEachBackend('typed client: events and waitForJob', ({ db }) => {
  let server: LiveServer;
  let proxy: FaultProxy;
  let projectId: string;
  let adminKey: string;
  let client: DocwrightClient;
  let viaProxy: DocwrightClient;

  before(async () => {
    server = await startLiveServer(db());
    proxy = await startFaultProxy(server.url);
    const seeded = await seedProject(db(), { model: 'openai:gpt-test' });
    projectId = seeded.project.id;
    adminKey = seeded.adminKey;
    client = new DocwrightClient({ baseUrl: server.url, apiKey: adminKey });
    viaProxy = new DocwrightClient({ baseUrl: proxy.url, apiKey: adminKey });
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  const isEvents = (url: string) => /\/events(\?|$)/.test(url);
  const isGetJob = (method: string, url: string) => method === 'GET' && /\/job\/job_[0-9A-Za-z]+$/.test(url);

  describe('streamJobEvents', () => {
    test('live events of a running job, in order, until the job is over', async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: live' });
      const seen: JobEvent[] = [];
      for await (const event of client.streamJobEvents(projectId, job.id)) {
        seen.push(event);
        // Let the job finish only once the stream has shown it running.
        if (event.type === 'tool_call') server.release(job.id);
      }
      const types = seen.map((e) => e.type);
      assert.deepEqual(types.slice(0, 3), ['created', 'started', 'tool_call']);
      assert.equal(types.at(-1), 'completed');
      const ids = seen.map((e) => e.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(new Set(ids).size, ids.length, 'no event twice');
      // The same events as the JSON fallback lists.
      assert.deepEqual(await client.listJobEvents(projectId, job.id), seen);
    });

    test('lastEventId starts after that event', async () => {
      const job = await client.createJob(projectId, { prompt: 'complete: history' });
      const done = await client.waitForJob(projectId, job.id, FAST);
      assert.equal(done.status, 'completed');
      const all = await client.listJobEvents(projectId, job.id);
      assert.ok(all.length >= 4, all.map((e) => e.type).join());
      const rest = await collect(client.streamJobEvents(projectId, job.id, { lastEventId: all[1]!.id }));
      assert.deepEqual(rest, all.slice(2));
      // Nothing after the last one: the server answers 204 and the iteration ends empty.
      assert.deepEqual(
        await collect(client.streamJobEvents(projectId, job.id, { lastEventId: all.at(-1)!.id })),
        [],
      );
    });

    test('a connection cut mid-stream is resumed with Last-Event-ID: nothing lost, nothing twice', async () => {
      const job = await client.createJob(projectId, { prompt: 'complete: cut' });
      await client.waitForJob(projectId, job.id, FAST);
      const expected = await client.listJobEvents(projectId, job.id);
      proxy.requests.length = 0;
      proxy.setFault((r, i) => (isEvents(r.url) && i === 0 ? { kind: 'cut-stream', afterEvents: 2 } : null));
      try {
        const seen = await collect(viaProxy.streamJobEvents(projectId, job.id, { reconnectMs: 10 }));
        assert.deepEqual(seen, expected);
        const streams = proxy.requests.filter((r) => isEvents(r.url));
        assert.ok(streams.length >= 2, `reconnected (${streams.length} requests)`);
        assert.equal(streams[0]!.headers['last-event-id'], undefined);
        assert.equal(streams[1]!.headers['last-event-id'], String(expected[1]!.id));
      } finally {
        proxy.setFault(() => null);
      }
    });

    test('503 with Retry-After on connect: waits as asked, then streams', async () => {
      const job = await client.createJob(projectId, { prompt: 'complete: busy' });
      await client.waitForJob(projectId, job.id, FAST);
      proxy.requests.length = 0;
      proxy.setFault((r, i) =>
        isEvents(r.url) && i === 0 ? { kind: 'status', status: 503, retryAfter: '1' } : null,
      );
      try {
        const seen = await collect(viaProxy.streamJobEvents(projectId, job.id));
        assert.equal(seen.at(-1)?.type, 'completed');
        const [first, second] = proxy.requests.filter((r) => isEvents(r.url));
        // Retry-After: 1 means no second try within that second (a lower bound, not a speed claim).
        assert.ok(second!.at - first!.at >= 1000, `retried after ${second!.at - first!.at} ms`);
      } finally {
        proxy.setFault(() => null);
      }
    });

    test('a 404 (no such job) ends the iteration with the typed error', async () => {
      const error = await rejection(collect(client.streamJobEvents(projectId, 'job_nonexistent000')));
      assert.ok(error instanceof NotFoundError && error.code === 'job_not_found', String(error));
    });
  });

  describe('waitForJob', () => {
    test('a job that fails at once (no model configured) resolves failed with model_not_configured', async () => {
      const noModel = await seedProject(db()); // the server has no default model either
      const c = new DocwrightClient({ baseUrl: server.url, apiKey: noModel.adminKey });
      const job = await c.createJob(noModel.project.id, { prompt: 'complete: anything' });
      const polled: string[] = [];
      const done = await c.waitForJob(noModel.project.id, job.id, {
        ...FAST,
        onPoll: (j) => polled.push(j.status),
      });
      assert.equal(done.status, 'failed');
      assert.equal(done.error?.code, 'model_not_configured');
      assert.match(done.error?.message ?? '', /DOCWRIGHT_MODEL/);
      assert.deepEqual(polled, ['failed']);
    });

    test('a job that fails while running, followed through its events', async () => {
      const job = await client.createJob(projectId, { prompt: 'fail: please' });
      const events: string[] = [];
      const done = await client.waitForJob(projectId, job.id, {
        ...FAST,
        onEvent: (e) => events.push(e.type),
      });
      assert.equal(done.status, 'failed');
      assert.equal(done.error?.code, 'pr_failed');
      assert.ok(events.includes('failed'), events.join());
    });

    test('a job that completes, by polling and by events, with its pull request link', async () => {
      const polled = await client.createJob(projectId, { prompt: 'complete: polled' });
      const byPolling = await client.waitForJob(projectId, polled.id, FAST);
      assert.equal(byPolling.status, 'completed');
      assert.ok(byPolling.prLink?.startsWith(PR_LINK_BASE), byPolling.prLink ?? 'null');

      const held = await client.createJob(projectId, { prompt: 'hold: streamed' });
      const events: JobEvent[] = [];
      const byEvents = await client.waitForJob(projectId, held.id, {
        ...FAST,
        onEvent: (e) => {
          events.push(e);
          if (e.type === 'tool_call') server.release(held.id);
        },
      });
      assert.equal(byEvents.status, 'completed');
      assert.ok(byEvents.prLink?.startsWith(PR_LINK_BASE));
      assert.deepEqual(
        events.map((e) => e.type).filter((t) => t !== 'released'),
        (await client.listJobEvents(projectId, held.id)).map((e) => e.type).filter((t) => t !== 'released'),
      );
    });

    test('a follow-up run: the earlier run’s replayed end does not end the wait', async () => {
      const job = await client.createJob(projectId, { prompt: 'fail: first run' });
      await client.waitForJob(projectId, job.id, FAST);
      await client.sendMessage(projectId, job.id, { prompt: 'hold: second run' });
      const types: string[] = [];
      const done = await client.waitForJob(projectId, job.id, {
        ...FAST,
        onEvent: (e) => {
          types.push(e.type);
          if (e.type === 'tool_call' && types.includes('message')) server.release(job.id);
        },
      });
      assert.equal(done.status, 'completed');
      assert.ok(done.prLink);
      assert.equal(types.filter((t) => t === 'created').length, 1, `each event once: ${types.join()}`);
    });

    test('429 and 503 while polling are waited out as Retry-After says', async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: throttled' });
      proxy.requests.length = 0;
      let refused = 0;
      proxy.setFault((r) => {
        if (!isGetJob(r.method, r.url) || refused >= 2) return null;
        refused++;
        return refused === 1
          ? {
              kind: 'status',
              status: 429,
              retryAfter: '1',
              contentType: 'application/json',
              body: '{"error":"slow down","code":"rate_limited","requestId":"req_proxy"}',
            }
          : { kind: 'status', status: 503, retryAfter: '1' };
      });
      try {
        const waiting = viaProxy.waitForJob(projectId, job.id, FAST);
        await eventually(
          'both refusals',
          async () => refused === 2 && proxy.requests.filter((r) => isGetJob(r.method, r.url)).length >= 3,
        );
        server.release(job.id);
        const done = await waiting;
        assert.equal(done.status, 'completed');
        const gets = proxy.requests.filter((r) => isGetJob(r.method, r.url));
        assert.ok(gets[1]!.at - gets[0]!.at >= 1000, `after the 429: ${gets[1]!.at - gets[0]!.at} ms`);
        assert.ok(gets[2]!.at - gets[1]!.at >= 1000, `after the 503: ${gets[2]!.at - gets[1]!.at} ms`);
      } finally {
        proxy.setFault(() => null);
      }
    });

    test('on a server without the event stream, onEvent falls back to polling', async () => {
      const job = await client.createJob(projectId, { prompt: 'complete: old server' });
      proxy.setFault((r) =>
        isEvents(r.url)
          ? {
              kind: 'status',
              status: 404,
              contentType: 'application/json',
              body: JSON.stringify({
                error: `No route for GET ${r.url}.`,
                code: 'route_not_found',
                requestId: 'req_old',
              }),
            }
          : null,
      );
      try {
        const events: JobEvent[] = [];
        const done = await viaProxy.waitForJob(projectId, job.id, {
          ...FAST,
          onEvent: (e) => events.push(e),
        });
        assert.equal(done.status, 'completed');
        assert.deepEqual(events, []);
      } finally {
        proxy.setFault(() => null);
      }
    });

    test('timeoutMs: a DocwrightTimeoutError with the job as last seen', async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: forever' });
      const error = await rejection(client.waitForJob(projectId, job.id, { ...FAST, timeoutMs: 300 }));
      assert.ok(error instanceof DocwrightTimeoutError, String(error));
      assert.equal(error.jobId, job.id);
      assert.equal(error.lastJob?.id, job.id);
      assert.equal(error.lastJob?.status, 'active');
      // Also while following events.
      const streamed = await rejection(
        client.waitForJob(projectId, job.id, { ...FAST, timeoutMs: 300, onEvent: () => {} }),
      );
      assert.ok(streamed instanceof DocwrightTimeoutError, String(streamed));
      assert.equal(streamed.lastJob?.status, 'active', 'read before following the stream');
      await client.cancelJob(projectId, job.id);
    });

    test("the caller's signal stops the wait with its reason", async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: aborted' });
      const controller = new AbortController();
      const waiting = client.waitForJob(projectId, job.id, {
        ...FAST,
        signal: controller.signal,
        onPoll: () => controller.abort(new Error('user stopped')),
      });
      const error = await rejection(waiting);
      assert.equal((error as Error).message, 'user stopped');
      await client.cancelJob(projectId, job.id);
    });

    test('a job that does not exist ends the wait at once with NotFoundError', async () => {
      const error = await rejection(client.waitForJob(projectId, 'job_nonexistent000', FAST));
      assert.ok(error instanceof NotFoundError, String(error));
    });
  });

  test('an HTML error page from a proxy is an unexpected_response ServerError, status kept', async () => {
    proxy.setFault(() => ({ kind: 'status', status: 502 }));
    try {
      const error = await rejection(viaProxy.getJob(projectId, 'job_x'));
      assert.ok(error instanceof ServerError && error instanceof DocwrightError, String(error));
      assert.equal(error.status, 502);
      assert.equal(error.code, 'unexpected_response');
      assert.match(error.message, /502/);
    } finally {
      proxy.setFault(() => null);
    }
  });
});

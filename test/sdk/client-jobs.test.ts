// The typed client's job calls against a real server (HTTP on 127.0.0.1, real database, a worker
// with a scripted runner): each call, paging, and each kind of error typed by the API's code.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';
import { createKey, revokeKey } from '../../src/modules/keys/service.ts';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  DocwrightClient,
  DocwrightError,
  DocwrightNetworkError,
  hasCode,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { eventually, type LiveServer, PR_LINK_BASE, startLiveServer } from './live-server.ts';

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The rejection of a promise that must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

await forEachBackend('typed client: jobs', ({ db }) => {
  let server: LiveServer;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let client: DocwrightClient;
  let projectId: string;

  before(async () => {
    server = await startLiveServer(db());
    seeded = await seedProject(db(), { model: 'openai:gpt-test', ref: 'docs-main' });
    projectId = seeded.project.id;
    client = new DocwrightClient({ baseUrl: server.url, apiKey: seeded.adminKey });
  });
  after(() => server.close());

  describe('calls', () => {
    test('createJob answers the contract fields; getJob reads the same job', async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: fix the intro' });
      assert.match(job.id, /^job_/);
      assert.equal(job.status, 'active');
      assert.deepEqual(job.source, { repository: seeded.project.repositoryUrl, ref: 'docs-main' });
      assert.equal(job.model, 'openai:gpt-test');
      assert.equal(job.prLink, null);
      assert.equal(job.archivedAt, null);
      assert.equal(job.prompt, 'hold: fix the intro');
      const read = await client.getJob(projectId, job.id);
      assert.equal(read.id, job.id);
      assert.equal(read.prompt, job.prompt);
      server.release(job.id);
      const done = await client.waitForJob(projectId, job.id, { pollIntervalMs: 20, maxPollIntervalMs: 100 });
      assert.equal(done.status, 'completed');
      assert.ok(done.prLink?.startsWith(PR_LINK_BASE), done.prLink ?? 'null');
    });

    test('an idempotency key returns the first job; reused with another body it is a 422', async () => {
      const key = `key-${Math.random()}`;
      const first = await client.createJob(projectId, { prompt: 'no-change: one' }, { idempotencyKey: key });
      const again = await client.createJob(projectId, { prompt: 'no-change: one' }, { idempotencyKey: key });
      assert.equal(again.id, first.id);
      const error = await rejection(
        client.createJob(projectId, { prompt: 'no-change: two' }, { idempotencyKey: key }),
      );
      assert.ok(error instanceof UnprocessableEntityError, String(error));
      assert.equal(error.status, 422);
      assert.equal(error.code, 'idempotency_key_reused');
      assert.match(error.requestId ?? '', /^req_[0-9a-f]{32}$/);
    });

    test('listJobs gives one page with a cursor; jobs() walks every page, newest first', async () => {
      const own = await seedProject(db(), { model: 'openai:gpt-test' });
      const c = new DocwrightClient({ baseUrl: server.url, apiKey: own.adminKey });
      const created: string[] = [];
      for (let i = 0; i < 7; i++)
        created.push((await c.createJob(own.project.id, { prompt: `no-change: ${i}` })).id);
      const page = await c.listJobs(own.project.id, { limit: 3 });
      assert.equal(page.jobs.length, 3);
      assert.equal(typeof page.nextCursor, 'string');
      const second = await c.listJobs(own.project.id, { limit: 3, cursor: page.nextCursor! });
      assert.deepEqual(
        [...page.jobs, ...second.jobs].map((j) => j.id),
        created.toReversed().slice(0, 6),
      );
      const all: string[] = [];
      for await (const job of c.jobs(own.project.id, { pageSize: 3 })) all.push(job.id);
      assert.deepEqual(all, created.toReversed(), 'every job once, newest first, over three pages');
      // The status filter reaches the server.
      await eventually('all seven to complete', async () => {
        const done = [];
        for await (const job of c.jobs(own.project.id, { status: 'completed', pageSize: 2 })) done.push(job);
        return done.length === 7;
      });
      const active = [];
      for await (const job of c.jobs(own.project.id, { status: 'active' })) active.push(job);
      assert.deepEqual(active, []);
    });

    test('cancel, follow-up, archive, and the conflicts each answers', async () => {
      const job = await client.createJob(projectId, { prompt: 'hold: rewrite' });
      const busy = await rejection(client.sendMessage(projectId, job.id, { prompt: 'more' }));
      assert.ok(busy instanceof ConflictError && busy.is('job_active'), String(busy));
      const cancelled = await client.cancelJob(projectId, job.id);
      assert.equal(cancelled.status, 'failed');
      assert.equal(cancelled.error?.code, 'cancelled');
      const twice = await rejection(client.cancelJob(projectId, job.id));
      assert.ok(twice instanceof ConflictError, String(twice));
      assert.equal(twice.status, 409);
      assert.ok(hasCode(twice, 'job_not_active'));

      const followed = await client.sendMessage(projectId, job.id, { prompt: 'complete: and the outro' });
      assert.equal(followed.status, 'active');
      const done = await client.waitForJob(projectId, job.id, { pollIntervalMs: 20, maxPollIntervalMs: 100 });
      assert.equal(done.status, 'completed');
      assert.ok(done.prLink?.startsWith(PR_LINK_BASE));

      const archived = await client.archiveJob(projectId, job.id);
      assert.equal(archived.status, 'archived');
      assert.ok(archived.archivedAt);
      const again = await rejection(client.archiveJob(projectId, job.id));
      assert.ok(again instanceof ConflictError && again.code === 'job_archived', String(again));
    });
  });

  describe('errors', () => {
    test('401: a revoked key, and a malformed one', async () => {
      const created = await createKey(db(), { projectId, scope: 'admin' });
      await revokeKey(db(), created.id);
      const unknown = new DocwrightClient({ baseUrl: server.url, apiKey: created.key });
      const e1 = await rejection(unknown.getJob(projectId, 'job_x'));
      assert.ok(e1 instanceof AuthenticationError, String(e1));
      assert.equal(e1.status, 401);
      assert.equal(e1.code, 'invalid_api_key');
      const malformed = new DocwrightClient({ baseUrl: server.url, apiKey: 'not-a-key' });
      const e2 = await rejection(malformed.listJobs(projectId));
      assert.ok(e2 instanceof AuthenticationError && e2.code === 'missing_api_key', String(e2));
    });

    test("403: another project's key, and a read key creating a job", async () => {
      const other = await seedProject(db());
      const foreign = new DocwrightClient({ baseUrl: server.url, apiKey: other.adminKey });
      const e1 = await rejection(foreign.listJobs(projectId));
      assert.ok(e1 instanceof PermissionDeniedError, String(e1));
      assert.equal(e1.code, 'project_forbidden');
      const reader = new DocwrightClient({ baseUrl: server.url, apiKey: seeded.readKey });
      const e2 = await rejection(reader.createJob(projectId, { prompt: 'x' }));
      assert.ok(e2 instanceof PermissionDeniedError && e2.code === 'insufficient_scope', String(e2));
      // The read key still reads.
      assert.ok(Array.isArray((await reader.listJobs(projectId)).jobs));
    });

    test('404 job_not_found, with the message, request id and request path', async () => {
      const error = await rejection(client.getJob(projectId, 'job_doesnotexist00'));
      assert.ok(error instanceof NotFoundError, String(error));
      assert.equal(error.code, 'job_not_found');
      assert.match(error.message, /job_doesnotexist00/);
      assert.match(error.requestId ?? '', /^req_/);
      assert.equal(error.method, 'GET');
      assert.equal(error.path, `/v2/agent/${projectId}/job/job_doesnotexist00`);
    });

    test('400 invalid_body with details naming the field', async () => {
      const error = await rejection(client.createJob(projectId, { prompt: '   ' }));
      assert.ok(error instanceof BadRequestError, String(error));
      assert.equal(error.code, 'invalid_body');
      assert.equal(error.details[0]?.name, 'prompt');
    });

    test('429 rate_limited with Retry-After in seconds', async () => {
      const limited = await startLiveServer(db(), { jobRateLimitPerHour: 1 });
      try {
        const own = await seedProject(db(), { model: 'openai:gpt-test' });
        const c = new DocwrightClient({ baseUrl: limited.url, apiKey: own.adminKey });
        await c.createJob(own.project.id, { prompt: 'no-change: the one allowed' });
        const error = await rejection(c.createJob(own.project.id, { prompt: 'no-change: one too many' }));
        assert.ok(error instanceof RateLimitError, String(error));
        assert.equal(error.status, 429);
        assert.equal(error.code, 'rate_limited');
        assert.ok(error.retryable);
        assert.ok(
          error.retryAfterSeconds !== null && error.retryAfterSeconds >= 1 && error.retryAfterSeconds <= 3600,
          `retryAfterSeconds ${error.retryAfterSeconds}`,
        );
      } finally {
        await limited.close();
      }
    });

    test('no server: a DocwrightNetworkError, not an API error', async () => {
      const port = await closedPort();
      const c = new DocwrightClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: seeded.adminKey });
      const error = await rejection(c.getJob(projectId, 'job_x'));
      assert.ok(error instanceof DocwrightNetworkError, String(error));
      assert.ok(!(error instanceof DocwrightError));
      assert.match(error.message, /ECONNREFUSED/);
    });

    test('an aborted call rejects with the abort reason', async () => {
      const controller = new AbortController();
      controller.abort(new Error('stop now'));
      const error = await rejection(client.getJob(projectId, 'job_x', { signal: controller.signal }));
      assert.equal((error as Error).message, 'stop now');
    });

    test('the key appears in no error, message or inspection of the client', async () => {
      const key = seeded.adminKey;
      const port = await closedPort();
      const errors = [
        await rejection(client.getJob(projectId, 'job_nope')),
        await rejection(
          new DocwrightClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key }).getJob(projectId, 'x'),
        ),
      ];
      for (const error of errors) {
        const shown = `${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 5 })}`;
        assert.ok(!shown.includes(key), shown);
      }
      const shownClient = `${inspect(client, { depth: 5, showHidden: true })} ${JSON.stringify(client)}`;
      assert.ok(!shownClient.includes(key), shownClient);
    });

    test('bad options are refused before any request', () => {
      assert.throws(() => new DocwrightClient({ baseUrl: 'localhost:3000', apiKey: 'dw_x' }), /baseUrl/);
      assert.throws(() => new DocwrightClient({ baseUrl: server.url, apiKey: '' }), /apiKey/);
      assert.throws(
        () => new DocwrightClient({ baseUrl: 'http://user:secret@127.0.0.1:3000', apiKey: 'dw_x' }),
        (error: Error) => /user name or password/.test(error.message) && !error.message.includes('secret'),
      );
    });
  });
});

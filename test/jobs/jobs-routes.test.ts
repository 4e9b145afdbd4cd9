import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

await forEachBackend('agent job routes', ({ db }) => {
  let app: App;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let base: string;
  const queued: string[] = [];

  before(async () => {
    app = await createTestApp(db(), { onJobQueued: (id) => queued.push(id) });
    seeded = await seedProject(db(), { ref: 'docs-main' });
    base = `/v2/agent/${seeded.project.id}`;
  });
  after(() => app.close());

  const create = (payload: unknown, headers: Record<string, string> = {}, key = seeded.adminKey) =>
    app.inject({
      method: 'POST',
      url: `${base}/job`,
      headers: { 'content-type': 'application/json', ...bearer(key), ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const post = (path: string, payload?: unknown) =>
    app.inject({
      method: 'POST',
      url: `${base}${path}`,
      headers: {
        ...bearer(seeded.adminKey),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    });
  const get = (path: string) =>
    app.inject({ method: 'GET', url: `${base}${path}`, headers: bearer(seeded.readKey) });

  describe('create', () => {
    test('201 with the contract fields, field by field', async () => {
      const before = Date.now();
      const res = await create({ prompt: 'Fix the typo in the install guide' });
      assert.equal(res.statusCode, 201);
      const job = res.json();
      assert.match(job.id, /^job_[0-9A-Za-z]{16}$/);
      assert.equal(job.status, 'active');
      assert.deepEqual(job.source, { repository: seeded.project.repositoryUrl, ref: 'docs-main' });
      assert.equal(job.model, 'openai:gpt-test');
      assert.equal(job.prLink, null);
      assert.match(job.createdAt, ISO);
      assert.ok(Date.parse(job.createdAt) >= before - 1000);
      assert.equal(job.archivedAt, null);
      assert.equal(job.prompt, 'Fix the typo in the install guide');
      assert.equal(job.error, null);
      assert.equal(job.completedAt, null);
      assert.ok(queued.includes(job.id), 'the worker is woken');
      const fetched = await get(`/job/${job.id}`);
      assert.equal(fetched.statusCode, 200);
      assert.deepEqual(fetched.json(), job);
    });

    test('the project model wins over the server default', async () => {
      const s = await seedProject(db(), { model: 'anthropic:claude-test' });
      const res = await app.inject({
        method: 'POST',
        url: `/v2/agent/${s.project.id}/job`,
        headers: { 'content-type': 'application/json', ...bearer(s.adminKey) },
        payload: { prompt: 'x' },
      });
      assert.equal(res.json().model, 'anthropic:claude-test');
    });

    test('with no model configured the job fails at once with model_not_configured', async () => {
      const noModel = await createTestApp(db(), {
        config: { defaultModel: null, jobRateLimitPerHour: 100, publicUrl: 'http://x' },
      });
      try {
        const res = await noModel.inject({
          method: 'POST',
          url: `${base}/job`,
          headers: { 'content-type': 'application/json', ...bearer(seeded.adminKey) },
          payload: { prompt: 'x' },
        });
        assert.equal(res.statusCode, 201);
        const job = res.json();
        assert.equal(job.status, 'failed');
        assert.equal(job.error.code, 'model_not_configured');
        assert.match(job.error.message, /DOCWRIGHT_MODEL/);
        assert.match(job.completedAt, ISO);
        // A follow-up while still unconfigured is recorded and fails again at once...
        const again = await noModel.inject({
          method: 'POST',
          url: `${base}/job/${job.id}/message`,
          headers: { 'content-type': 'application/json', ...bearer(seeded.adminKey) },
          payload: { prompt: 'try again' },
        });
        assert.equal(again.statusCode, 200);
        assert.equal(again.json().status, 'failed');
        assert.equal(again.json().error.code, 'model_not_configured');
        // ...and runs once a model is configured.
        const configured = await app.inject({
          method: 'POST',
          url: `${base}/job/${job.id}/message`,
          headers: { 'content-type': 'application/json', ...bearer(seeded.adminKey) },
          payload: { prompt: 'and now' },
        });
        assert.equal(configured.statusCode, 200);
        assert.equal(configured.json().status, 'active');
        assert.equal(configured.json().model, 'openai:gpt-test');
      } finally {
        await noModel.close();
      }
    });

    test('prompt validation names the field and the limit', async () => {
      const cases: [unknown, number, string, RegExp][] = [
        [{}, 400, 'invalid_body', /"prompt" is required/],
        [{ prompt: 42 }, 400, 'invalid_body', /"prompt" must be string/],
        [{ prompt: '' }, 400, 'invalid_body', /"prompt"/],
        [{ prompt: '  \n\t ' }, 400, 'invalid_body', /"prompt" must not be empty/],
        [{ prompt: 'x'.repeat(50_001) }, 400, 'invalid_body', /50000 characters/],
        [[{ prompt: 'x' }], 400, 'invalid_body', /object/],
        ['"just a string"', 400, 'invalid_body', /object/],
        ['{"prompt": "unterminated', 400, 'invalid_json', /not valid JSON/],
        ['', 400, 'invalid_json', /JSON object body is required/],
      ];
      for (const [payload, status, code, message] of cases) {
        const res = await create(payload);
        assert.equal(res.statusCode, status, JSON.stringify(payload).slice(0, 40));
        assert.equal(res.json().code, code, JSON.stringify(payload).slice(0, 40));
        assert.match(res.json().error, message);
        assert.ok(res.json().error.length < 400, 'a long prompt is not echoed whole');
      }
    });

    test('a prompt of exactly 50,000 characters is accepted (emoji count as one)', async () => {
      assert.equal((await create({ prompt: 'é'.repeat(50_000) })).statusCode, 201);
      assert.equal((await create({ prompt: '📝'.repeat(50_000) })).statusCode, 201);
    });

    test('non-JSON content types → 415; bodies over 1 MiB → 413', async () => {
      const text = await create('prompt=x', { 'content-type': 'text/plain' });
      assert.equal(text.statusCode, 415);
      assert.equal(text.json().code, 'unsupported_media_type');
      const huge = await create({ prompt: 'x'.repeat(1024 * 1024 + 10) });
      assert.equal(huge.statusCode, 413);
      assert.equal(huge.json().code, 'body_too_large');
    });

    test('Idempotency-Key: same key and body → the same job; another body → 422', async () => {
      const key = { 'idempotency-key': 'retry-safe-1' };
      const first = await create({ prompt: 'Add a FAQ' }, key);
      const again = await create({ prompt: 'Add a FAQ' }, key);
      assert.equal(first.statusCode, 201);
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().id, first.json().id);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const other = await create({ prompt: 'Something else' }, key);
      assert.equal(other.statusCode, 422);
      assert.equal(other.json().code, 'idempotency_key_reused');
      const fresh = await create({ prompt: 'Add a FAQ' }, { 'idempotency-key': 'retry-safe-2' });
      assert.notEqual(fresh.json().id, first.json().id);
      const bad = await create({ prompt: 'x' }, { 'idempotency-key': 'has spaces in it' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().code, 'invalid_header');
    });

    test('concurrent retries with one Idempotency-Key create one job', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          create({ prompt: 'Once only' }, { 'idempotency-key': 'concurrent-1' }),
        ),
      );
      const ids = new Set(results.map((r) => r.json().id));
      assert.equal(ids.size, 1);
    });
  });

  describe('get', () => {
    test('404 for an unknown job and for a job of another project', async () => {
      const missing = await get('/job/job_0000000000000000');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().code, 'job_not_found');
      const s = await seedProject(db());
      const theirs = await app.inject({
        method: 'POST',
        url: `/v2/agent/${s.project.id}/job`,
        headers: { 'content-type': 'application/json', ...bearer(s.adminKey) },
        payload: { prompt: 'theirs' },
      });
      const res = await get(`/job/${theirs.json().id}`);
      assert.equal(res.statusCode, 404);
    });
  });

  describe('list', () => {
    test('newest first with a cursor that visits every job once, even while jobs are added', async () => {
      const s = await seedProject(db());
      const url = `/v2/agent/${s.project.id}`;
      const created: string[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await app.inject({
          method: 'POST',
          url: `${url}/job`,
          headers: { 'content-type': 'application/json', ...bearer(s.adminKey) },
          payload: { prompt: `job ${i}` },
        });
        created.push(res.json().id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const res = await app.inject({ url: `${url}/jobs?limit=5${q}`, headers: bearer(s.readKey) });
        assert.equal(res.statusCode, 200);
        const body = res.json();
        seen.push(...body.jobs.map((j: { id: string }) => j.id));
        cursor = body.nextCursor;
        pages++;
        if (pages === 1) {
          // A job created after the first page must not shift later pages.
          await app.inject({
            method: 'POST',
            url: `${url}/job`,
            headers: { 'content-type': 'application/json', ...bearer(s.adminKey) },
            payload: { prompt: 'late' },
          });
        }
      } while (cursor !== null);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...created].reverse());
    });

    test('status filter, default limit and bad parameters', async () => {
      // A project of its own with more jobs than the default page, some of them cancelled, so a
      // wrong default or a filter that lets other statuses through shows.
      const s = await seedProject(db());
      const url = `/v2/agent/${s.project.id}`;
      const admin = { 'content-type': 'application/json', ...bearer(s.adminKey) };
      const ids: string[] = [];
      for (let i = 0; i < 23; i++) {
        const res = await app.inject({
          method: 'POST',
          url: `${url}/job`,
          headers: admin,
          payload: { prompt: `job ${i}` },
        });
        assert.equal(res.statusCode, 201);
        ids.push(res.json().id);
      }
      const cancelledIds = [ids[3]!, ids[17]!];
      for (const id of cancelledIds) {
        const res = await app.inject({
          method: 'POST',
          url: `${url}/job/${id}/cancel`,
          headers: bearer(s.adminKey),
        });
        assert.equal(res.statusCode, 200);
      }
      const list = (query: string) => app.inject({ url: `${url}/jobs${query}`, headers: bearer(s.readKey) });

      const failed = await list('?status=failed');
      assert.equal(failed.statusCode, 200);
      assert.deepEqual(
        failed.json().jobs.map((j: { id: string }) => j.id),
        [...cancelledIds].reverse(),
      );
      const active = await list('?status=active&limit=100');
      assert.equal(active.json().jobs.length, 21);
      assert.ok(active.json().jobs.every((j: { status: string }) => j.status === 'active'));

      const defaults = (await list('')).json();
      assert.equal(defaults.jobs.length, 20, 'the default page holds 20 jobs');
      assert.equal(typeof defaults.nextCursor, 'string', 'and says more remain');
      const rest = (await list(`?cursor=${defaults.nextCursor}`)).json();
      assert.equal(rest.jobs.length, 3);
      assert.equal(rest.nextCursor, null);
      assert.deepEqual(
        [...defaults.jobs, ...rest.jobs].map((j: { id: string }) => j.id),
        [...ids].reverse(),
      );
      for (const [query, name] of [
        ['status=done', 'status'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=1e1', 'limit'],
        ['limit=5&limit=6', 'limit'],
        ['cursor=nonsense', 'cursor'],
      ]) {
        const res = await get(`/jobs?${query}`);
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().code, 'invalid_parameter', query);
        assert.equal(res.json().details[0].name, name, query);
      }
    });
  });

  describe('state changes', () => {
    test('cancel → failed(cancelled); follow-up → active; archive; and the conflicts', async () => {
      const job = (await create({ prompt: 'Rewrite the intro' })).json();
      const followWhileActive = await post(`/job/${job.id}/message`, { prompt: 'more' });
      assert.equal(followWhileActive.statusCode, 409);
      assert.equal(followWhileActive.json().code, 'job_active');
      const archiveWhileActive = await post(`/job/${job.id}/archive`);
      assert.equal(archiveWhileActive.statusCode, 409);
      assert.equal(archiveWhileActive.json().code, 'job_active');

      const cancelled = await post(`/job/${job.id}/cancel`);
      assert.equal(cancelled.statusCode, 200);
      assert.equal(cancelled.json().status, 'failed');
      assert.deepEqual(cancelled.json().error, {
        code: 'cancelled',
        message: 'Cancelled by a client request.',
      });
      const cancelAgain = await post(`/job/${job.id}/cancel`);
      assert.equal(cancelAgain.statusCode, 409);
      assert.equal(cancelAgain.json().code, 'job_not_active');

      queued.length = 0;
      const followed = await post(`/job/${job.id}/message`, { prompt: 'Also fix the outro' });
      assert.equal(followed.statusCode, 200);
      assert.equal(followed.json().status, 'active');
      assert.equal(followed.json().error, null);
      assert.deepEqual(queued, [job.id]);
      const prompts = await db().query<{ seq: number; prompt: string }>(
        'SELECT seq, prompt FROM job_prompts WHERE job_id = $1 ORDER BY seq',
        [job.id],
      );
      assert.deepEqual(prompts, [
        { seq: 1, prompt: 'Rewrite the intro' },
        { seq: 2, prompt: 'Also fix the outro' },
      ]);

      await post(`/job/${job.id}/cancel`, {}); // an empty JSON object body is fine too
      const archived = await post(`/job/${job.id}/archive`);
      assert.equal(archived.statusCode, 200);
      assert.equal(archived.json().status, 'archived');
      assert.match(archived.json().archivedAt, ISO);
      const archiveAgain = await post(`/job/${job.id}/archive`);
      assert.equal(archiveAgain.statusCode, 409);
      assert.equal(archiveAgain.json().code, 'job_archived');
      const followArchived = await post(`/job/${job.id}/message`, { prompt: 'x' });
      assert.equal(followArchived.statusCode, 409);
      assert.equal(followArchived.json().code, 'job_archived');
      const cancelArchived = await post(`/job/${job.id}/cancel`);
      assert.equal(cancelArchived.statusCode, 409);

      const events = await db().query<{ type: string }>(
        'SELECT type FROM job_events WHERE job_id = $1 ORDER BY id',
        [job.id],
      );
      assert.deepEqual(
        events.map((e) => e.type),
        ['created', 'failed', 'message', 'failed', 'archived'],
      );
    });

    test('state routes on an unknown job → 404', async () => {
      for (const action of ['cancel', 'archive']) {
        const res = await post(`/job/job_0000000000000000/${action}`);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'job_not_found');
      }
      const res = await post('/job/job_0000000000000000/message', { prompt: 'x' });
      assert.equal(res.statusCode, 404);
    });
  });

  describe('rate limit', () => {
    test('creates and follow-ups beyond the hourly limit → 429 with Retry-After', async () => {
      const limited = await createTestApp(db(), {
        config: { jobRateLimitPerHour: 3, defaultModel: 'openai:gpt-test', publicUrl: 'http://x' },
      });
      try {
        const s = await seedProject(db());
        const send = (url: string, prompt: string) =>
          limited.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json', ...bearer(s.adminKey) },
            payload: { prompt },
          });
        const jobUrl = `/v2/agent/${s.project.id}/job`;
        const first = await send(jobUrl, 'one');
        await limited.inject({
          method: 'POST',
          url: `${jobUrl}/${first.json().id}/cancel`,
          headers: bearer(s.adminKey),
        });
        assert.equal((await send(`${jobUrl}/${first.json().id}/message`, 'two')).statusCode, 200);
        assert.equal((await send(jobUrl, 'three')).statusCode, 201);
        const refused = await send(jobUrl, 'four');
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().code, 'rate_limited');
        assert.match(refused.json().error, /at most 3 /);
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, String(retryAfter));
        // Another project is not affected.
        const o = await seedProject(db());
        const res = await limited.inject({
          method: 'POST',
          url: `/v2/agent/${o.project.id}/job`,
          headers: { 'content-type': 'application/json', ...bearer(o.adminKey) },
          payload: { prompt: 'fine' },
        });
        assert.equal(res.statusCode, 201);
      } finally {
        await limited.close();
      }
    });
  });
});

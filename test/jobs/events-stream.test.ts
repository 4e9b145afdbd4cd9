// The event stream's parts against a real database, without HTTP: live delivery through the
// notification alone, the keep-alive tick as a safety net, backpressure, event ids in commit
// order under concurrent writers (PostgreSQL), and when a stream counts the job as over.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { JobEventHub } from '../../src/modules/jobs/events/event-hub.ts';
import { JobEventStream, jobStreamIsOver } from '../../src/modules/jobs/events/job-event-stream.ts';
import { insertEvent } from '../../src/modules/jobs/queries.ts';
import { createJob } from '../../src/modules/jobs/service.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend, TEST_DATABASE_URL } from '../helpers/databases.ts';

const quietLogger = { warn: () => {} };

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a stream wrote, parsed as SSE as it arrives. */
function reader(out: PassThrough) {
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (m) => messages.push(m), onComment: (c) => comments.push(c) });
  out.setEncoding('utf8');
  out.on('data', (chunk: string) => parser.feed(chunk));
  return { messages, comments };
}

await forEachBackend('job event stream parts', ({ db, backend }) => {
  const activeJob = async () => {
    const { project } = await seedProject(db());
    const { job } = await createJob(
      db() as Database,
      { jobRateLimitPerHour: 1000, defaultModel: 'openai:gpt-test' },
      { projectId: project.id, prompt: 'p', idempotencyKey: null },
    );
    return job;
  };

  test('live events arrive through the notification alone (the keep-alive tick is an hour away)', async (t) => {
    const job = await activeJob();
    const out = new PassThrough();
    const seen = reader(out);
    const hub = new JobEventHub(db());
    const stream = new JobEventStream({
      db: db(),
      hub,
      logger: quietLogger,
      jobId: job.id,
      after: 0,
      out,
      keepAliveMs: 3_600_000,
    });
    t.after(() => stream.close()); // also when an assertion fails: the open listener would hold the process
    await stream.start();
    await waitFor('history', () => seen.messages.length === 1);
    await insertEvent(db(), job.id, 'tool_call', { n: 1 });
    await db().transaction(async (tx) => {
      await insertEvent(tx, job.id, 'tool_call', { n: 2 });
      await insertEvent(tx, job.id, 'tool_call', { n: 3 });
    });
    await waitFor('three live events', () => seen.messages.length === 4);
    assert.deepEqual(
      seen.messages.map((m) => JSON.parse(m.data).data.n ?? m.event),
      ['created', 1, 2, 3],
    );
    assert.equal(seen.comments.length, 0);
    stream.close();
    await stream.done;
    assert.equal(hub.subscriberCount, 0);
    assert.equal(hub.listening, false);
  });

  test('keep-alive comments are written, and each tick also catches up on events a lost notification missed', async (t) => {
    const job = await activeJob();
    const out = new PassThrough();
    const seen = reader(out);
    // A hub that subscribes but never wakes anyone: every notification is "lost".
    const deaf = { subscribe: async () => () => {} } as unknown as JobEventHub;
    const stream = new JobEventStream({
      db: db(),
      hub: deaf,
      logger: quietLogger,
      jobId: job.id,
      after: 0,
      out,
      keepAliveMs: 30,
    });
    t.after(() => stream.close());
    await stream.start();
    await waitFor('keep-alive comments', () => seen.comments.length >= 2);
    assert.ok(seen.comments.every((c) => c.trim() === 'keep-alive'));
    await insertEvent(db(), job.id, 'tool_call', { missed: true });
    await waitFor('the missed event', () => seen.messages.some((m) => m.event === 'tool_call'));
    stream.close();
    await stream.done;
  });

  test('a reader that does not read holds back its own stream, and gets every event once it does', async (t) => {
    const job = await activeJob();
    for (let i = 0; i < 200; i++) await insertEvent(db(), job.id, 'tool_call', { i, pad: 'x'.repeat(200) });
    const out = new PassThrough({ highWaterMark: 1024 });
    const hub = new JobEventHub(db());
    const stream = new JobEventStream({
      db: db(),
      hub,
      logger: quietLogger,
      jobId: job.id,
      after: 0,
      out,
      keepAliveMs: 3_600_000,
      pageSize: 50,
    });
    t.after(() => stream.close());
    await stream.start();
    await waitFor('the buffer to fill', () => out.writableNeedDrain);
    const stalledAt = stream.lastSentId;
    const events = await db().query<{ id: number }>(
      'SELECT id FROM job_events WHERE job_id = $1 ORDER BY id',
      [job.id],
    );
    assert.ok(stalledAt < events.at(-1)!.id, 'the stream waits instead of buffering everything');
    const seen = reader(out); // start reading
    await waitFor('everything', () => seen.messages.length === events.length);
    assert.deepEqual(
      seen.messages.map((m) => Number(m.id)),
      events.map((e) => e.id),
    );
    stream.close();
    await stream.done;
  });

  describe('event ids of one job follow commit order', { skip: backend !== 'postgres' }, () => {
    test('a writer that started later waits for the open transaction and gets the larger id', async () => {
      const job = await activeJob();
      const [{ name }] = (await db().query<{ name: string }>('SELECT current_database() AS name')) as [
        { name: string },
      ];
      // Two sessions of their own on the test database: the pool would not say which one runs what.
      const connection = new URL(TEST_DATABASE_URL);
      connection.pathname = `/${name}`;
      const first = new pg.Client({ connectionString: connection.toString() });
      const second = new pg.Client({ connectionString: connection.toString() });
      await first.connect();
      await second.connect();
      try {
        await first.query('BEGIN');
        const a = await first.query(
          "INSERT INTO job_events (job_id, type) VALUES ($1, 'first') RETURNING id",
          [job.id],
        );
        const secondPid = (await second.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const later = second.query(
          "INSERT INTO job_events (job_id, type) VALUES ($1, 'second') RETURNING id",
          [job.id],
        );
        await waitFor('the second writer to wait for the first', async () => {
          const rows = await db().query<{ wait_event_type: string | null }>(
            'SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1',
            [secondPid],
          );
          return rows[0]?.wait_event_type === 'Lock';
        });
        await first.query('COMMIT');
        const b = await later;
        assert.ok(Number(b.rows[0].id) > Number(a.rows[0].id), 'the later commit has the larger id');
      } finally {
        await first.end();
        await second.end();
      }
    });
  });
});

describe('when a stream counts the job as over', () => {
  const state = (s: Partial<Parameters<typeof jobStreamIsOver>[0] & object>) => ({
    status: 'completed' as const,
    idle_seconds: 0,
    last_end_id: 10,
    last_start_id: 1,
    ...s,
  });
  test('over once the terminal event of the latest run has been sent, and the job is not active', () => {
    assert.equal(jobStreamIsOver(state({}), 10), true);
    assert.equal(jobStreamIsOver(state({}), 9), false, 'the final event is not sent yet');
    assert.equal(jobStreamIsOver(state({ status: 'active' }), 10), false, 'a follow-up made it active again');
    assert.equal(
      jobStreamIsOver(state({ last_start_id: 12 }), 20),
      false,
      'the end belongs to an earlier run',
    );
    assert.equal(jobStreamIsOver(state({ status: 'failed', last_end_id: 13, last_start_id: 12 }), 13), true);
    assert.equal(jobStreamIsOver(null, 0), true, 'the job is gone');
  });
  test('a job that ended without its event is over after a grace period, not before', () => {
    assert.equal(jobStreamIsOver(state({ status: 'failed', last_end_id: null, idle_seconds: 5 }), 3), false);
    assert.equal(jobStreamIsOver(state({ status: 'failed', last_end_id: null, idle_seconds: 31 }), 3), true);
  });
});

// How a job passes from one try to the next.
// - A worker whose heartbeats fail (a database hiccup longer than the lease) loses its job's lease
//   while the run is still going, and may claim the same job again itself. The new try must not run
//   beside the old one (they would share the job's worktree), the old one must be stopped, and
//   stop() must wait for both: a run the worker forgot would keep going after shutdown.
// - A worker shutting down gives its job back, and a worker already running elsewhere takes it
//   at once (notified), not at its next poll.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Database, Queryable } from '../../src/db/database.ts';
import type { JobRunner } from '../../src/modules/jobs/runner-contract.ts';
import { createJob, getJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

/** The database, except that lease renewals fail while `failing` is set. */
function withFailingHeartbeats(db: Database, failing: () => boolean): Database {
  const guard = (q: Queryable): Queryable => ({
    query: (sql, params) =>
      failing() && /^\s*UPDATE jobs SET lease_expires_at/.test(sql)
        ? Promise.reject(new Error('connection terminated unexpectedly'))
        : q.query(sql, params),
    exec: (sql) => q.exec(sql),
  });
  return {
    kind: db.kind,
    ...guard(db),
    transaction: (fn) => db.transaction((tx) => fn(guard(tx))),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
}

function untilAbortedOr(signal: AbortSignal, ms: number): Promise<'aborted' | 'timed out'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timed out'), ms);
    const done = () => {
      clearTimeout(timer);
      resolve('aborted');
    };
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}

await forEachBackend('job worker hand-overs', ({ db }) => {
  let worker: JobWorker | undefined;
  let other: JobWorker | undefined;
  after(async () => {
    await worker?.stop(0);
    await other?.stop(0);
  });

  test('the old try is stopped first, the tries never overlap, and stop() waits for them', {
    timeout: 30_000,
  }, async () => {
    const { project } = await seedProject(db());
    let heartbeatsFail = false;
    let active = 0;
    let mostAtOnce = 0;
    const firstTry: { ended: 'aborted' | 'timed out' | null } = { ended: null };
    const runner: JobRunner = async (input) => {
      active++;
      mostAtOnce = Math.max(mostAtOnce, active);
      try {
        if (input.attempt === 1) {
          heartbeatsFail = true; // from now on the lease runs out
          firstTry.ended = await untilAbortedOr(input.signal, 5000);
          return { status: 'failed', code: 'internal_error', message: 'first try' };
        }
        heartbeatsFail = false;
        return {
          status: 'completed',
          prLink: null,
          branch: null,
          summary: 'second try',
          stopReason: 'finish',
          usage: null,
        };
      } finally {
        active--;
      }
    };
    worker = new JobWorker({
      db: withFailingHeartbeats(db(), () => heartbeatsFail),
      runner,
      logger: createLogger('silent'),
      concurrency: 2,
      leaseMs: 400,
      maxAttempts: 3,
      pollIntervalMs: 100,
    });
    await worker.start();
    const { job } = await createJob(
      db(),
      { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test' },
      { projectId: project.id, prompt: 'Retake me', idempotencyKey: null },
    );
    worker.nudge();
    const deadline = Date.now() + 20_000;
    while ((await getJob(db(), project.id, job.id)).status === 'active' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const finished = await getJob(db(), project.id, job.id);
    assert.equal(finished.status, 'completed', JSON.stringify(finished.error));
    assert.equal(finished.summary, 'second try');
    await worker.stop(0);
    assert.equal(firstTry.ended, 'aborted', 'the first try was told to stop when the job was taken again');
    assert.equal(mostAtOnce, 1, 'the two tries never ran at the same time');
    assert.equal(active, 0, 'stop() returned with no run still going');
  });

  test('a job given back at shutdown is taken at once by a worker that is already running', {
    timeout: 30_000,
  }, async () => {
    const { project } = await seedProject(db());
    const options = {
      logger: createLogger('silent'),
      concurrency: 1,
      leaseMs: 3000,
      maxAttempts: 3,
      // Far longer than the test: only a notification can start the job on the other worker.
      pollIntervalMs: 600_000,
    };
    let holding = false;
    const stopping = new JobWorker({
      ...options,
      db: db(),
      runner: async ({ signal }) => {
        holding = true;
        await untilAbortedOr(signal, 20_000);
        return { status: 'failed', code: 'internal_error', message: 'stopped' };
      },
    });
    await stopping.start();
    const { job } = await createJob(
      db(),
      { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test' },
      { projectId: project.id, prompt: 'Hand me over', idempotencyKey: null },
    );
    stopping.nudge();
    while (!holding) await new Promise((r) => setTimeout(r, 20));
    // The other worker starts while the job is held, so its start-up look finds nothing.
    const taken: number[] = [];
    other = new JobWorker({
      ...options,
      db: db(),
      runner: async (input) => {
        taken.push(input.attempt);
        return {
          status: 'completed',
          prLink: null,
          branch: null,
          summary: 'taken over',
          stopReason: 'finish',
          usage: null,
        };
      },
    });
    await other.start();
    await stopping.stop(0);
    const deadline = Date.now() + 10_000;
    while ((await getJob(db(), project.id, job.id)).status === 'active' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await getJob(db(), project.id, job.id)).summary, 'taken over');
    assert.deepEqual(taken, [1], 'the released try did not count');
  });
});

// The worker against a real database: claims, leases, cancel, shutdown, retries, worker_lost.
// The runner here is a scripted function: the agent itself is tested elsewhere.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { JobRunInput, JobRunner, JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { cancelJob, createJob, getJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { claimNextJob } from '../../src/modules/jobs/worker-queries.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const config = { jobRateLimitPerHour: 10_000, defaultModel: 'openai:gpt-test' };
const completed = (prLink: string | null = 'https://github.com/example/docs/pull/1'): JobRunResult => ({
  status: 'completed',
  prLink,
  branch: 'docwright/x-1',
  summary: 'Did it',
  stopReason: 'finish',
  usage: { inputTokens: 10, outputTokens: 5, steps: 2 },
});

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
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

await forEachBackend('job worker', ({ db }) => {
  const workers: JobWorker[] = [];
  const startWorker = async (
    runner: JobRunner,
    options: Partial<ConstructorParameters<typeof JobWorker>[0]> = {},
  ) => {
    const worker = new JobWorker({
      db: db(),
      runner,
      logger: createLogger('silent'),
      concurrency: 2,
      leaseMs: 3000,
      maxAttempts: 3,
      // A long poll: these tests see notifications, not polling, start the jobs.
      pollIntervalMs: 60_000,
      ...options,
    });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  after(async () => {
    await Promise.all(workers.map((w) => w.stop(0)));
  });
  const newJob = async (projectId: string, prompt = 'Fix the docs') =>
    (await createJob(db() as Database, config, { projectId, prompt, idempotencyKey: null })).job;

  test('a created job is picked up through the notification and completed with its outcome', async () => {
    const { project } = await seedProject(db());
    const seen: JobRunInput[] = [];
    const worker = await startWorker(async (input) => {
      seen.push(input);
      await input.event('tool_call', { tool: 'edit_file', path: 'README.md' });
      return completed();
    });
    const job = await newJob(project.id, 'Document the CLI');
    const done = await waitFor('completion', async () => {
      const j = await getJob(db(), project.id, job.id);
      return j.status === 'completed' ? j : null;
    });
    assert.equal(done.prLink, 'https://github.com/example/docs/pull/1');
    assert.equal(done.summary, 'Did it');
    assert.equal(done.branch, 'docwright/x-1');
    assert.deepEqual(done.usage, { inputTokens: 10, outputTokens: 5, steps: 2 });
    assert.ok(done.completedAt);
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0]!.prompts, ['Document the CLI']);
    assert.equal(seen[0]!.project.id, project.id);
    assert.equal(seen[0]!.attempt, 1);
    const events = await db().query<{ type: string }>(
      'SELECT type FROM job_events WHERE job_id = $1 ORDER BY id',
      [job.id],
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['created', 'started', 'tool_call', 'completed'],
    );
    await worker.stop(0);
  });

  test('deferred cleanup runs after the outcome is recorded; the job holds its slot until it ends', async () => {
    const { project } = await seedProject(db());
    let releaseCleanup: () => void = () => {};
    const cleanupMayEnd = new Promise<void>((resolve) => {
      releaseCleanup = resolve;
    });
    let statusSeenByCleanup: string | null = null;
    let cleanupEnded = false;
    const worker = await startWorker(async (input) => {
      input.deferCleanup?.(async () => {
        statusSeenByCleanup = (await getJob(db(), project.id, input.job.id)).status;
        await cleanupMayEnd;
        cleanupEnded = true;
      });
      return completed();
    });
    const job = await newJob(project.id);
    await waitFor('the cleanup to start', async () => statusSeenByCleanup !== null);
    assert.equal(statusSeenByCleanup, 'completed', 'the outcome was recorded before the cleanup ran');
    assert.deepEqual(worker.activeJobIds, [job.id], 'the slot is held while the cleanup runs');
    const stopped = worker.stop(10_000);
    releaseCleanup();
    await stopped;
    assert.equal(cleanupEnded, true, 'stop() waited for the cleanup');
    assert.deepEqual(worker.activeJobIds, []);
  });

  test('deferred cleanup runs also when the job was cancelled while running', async () => {
    const { project } = await seedProject(db());
    let cleaned = false;
    const worker = await startWorker(async (input) => {
      input.deferCleanup?.(async () => {
        cleaned = true;
      });
      await untilAborted(input.signal);
      return { status: 'failed', code: 'cancelled', message: 'Stopped while running.' };
    });
    const job = await newJob(project.id);
    await waitFor('the job to run', async () => worker.activeJobIds.includes(job.id));
    await cancelJob(db(), project.id, job.id);
    await waitFor('the worker to let go', async () => !worker.activeJobIds.includes(job.id));
    assert.equal(cleaned, true);
    await worker.stop(0);
  });

  test('cancel reaches a running job: the runner is aborted and the outcome stays cancelled', async () => {
    const { project } = await seedProject(db());
    let aborted = false;
    const worker = await startWorker(async ({ signal }) => {
      await untilAborted(signal);
      aborted = true;
      return completed();
    });
    const job = await newJob(project.id);
    await waitFor('start', async () => worker.activeJobIds.includes(job.id));
    await cancelJob(db(), project.id, job.id);
    await waitFor('abort', async () => aborted);
    await waitFor('worker to let go', async () => !worker.activeJobIds.includes(job.id));
    const after = await getJob(db(), project.id, job.id);
    assert.equal(after.status, 'failed');
    assert.equal(after.error?.code, 'cancelled');
    assert.equal(after.prLink, null);
    await worker.stop(0);
  });

  test("a dead worker's job is taken again once its lease expires, as attempt 2", async () => {
    const { project } = await seedProject(db());
    const job = await newJob(project.id);
    // Another "worker" claims it and dies: nothing renews its 50 ms lease.
    const claimed = await claimNextJob(db(), { owner: 'dead-worker', leaseMs: 50, maxAttempts: 3 });
    assert.equal(claimed?.id, job.id);
    const attempts: number[][] = [];
    const worker = await startWorker(
      async (input) => {
        attempts.push([input.attempt, input.earlierTries]);
        return completed(null);
      },
      { pollIntervalMs: 100 },
    );
    const done = await waitFor('retry', async () => {
      const j = await getJob(db(), project.id, job.id);
      return j.status === 'completed' ? j : null;
    });
    // The claim itself recorded the dead try, so the second one knows its branch may hold work.
    assert.deepEqual(attempts, [[2, 1]]);
    assert.equal(done.prLink, null);
    const starts = await db().query<{ data: { attempt: number; worker: string } }>(
      "SELECT data FROM job_events WHERE job_id = $1 AND type = 'started' ORDER BY id",
      [job.id],
    );
    assert.deepEqual(
      starts.map((s) => [s.data.attempt, s.data.worker]),
      [
        [1, 'dead-worker'],
        [2, worker.id],
      ],
    );
    await worker.stop(0);
  });

  test('after its last allowed try dies, a job fails with worker_lost instead of staying active', async () => {
    const { project } = await seedProject(db());
    const job = await newJob(project.id);
    await db().query(
      "UPDATE jobs SET attempts = 3, lease_owner = 'dead', lease_expires_at = now() - interval '1 second' WHERE id = $1",
      [job.id],
    );
    let ran = false;
    const worker = await startWorker(
      async () => {
        ran = true;
        return completed();
      },
      { pollIntervalMs: 100 },
    );
    const failed = await waitFor('worker_lost', async () => {
      const j = await getJob(db(), project.id, job.id);
      return j.status === 'failed' ? j : null;
    });
    assert.equal(failed.error?.code, 'worker_lost');
    assert.match(failed.error?.message ?? '', /stopped 3 times/);
    assert.equal(ran, false);
    await worker.stop(0);
  });

  test('a runner that throws fails the job with internal_error and no secret in the message', async () => {
    const { project } = await seedProject(db());
    const worker = await startWorker(async () => {
      throw new Error('git failed with Authorization: Bearer ghp_abcdefghijklmnop');
    });
    const job = await newJob(project.id);
    const failed = await waitFor('failure', async () => {
      const j = await getJob(db(), project.id, job.id);
      return j.status === 'failed' ? j : null;
    });
    assert.equal(failed.error?.code, 'internal_error');
    assert.ok(!failed.error?.message.includes('ghp_abcdefghijklmnop'), failed.error?.message);
    await worker.stop(0);
  });

  test('graceful stop gives a running job back without using up a try; another worker finishes it', async () => {
    const { project } = await seedProject(db());
    const first = await startWorker(async ({ signal }) => {
      await untilAborted(signal);
      return completed();
    });
    const job = await newJob(project.id);
    await waitFor('start', async () => first.activeJobIds.includes(job.id));
    await first.stop(50);
    const row = (
      await db().query<{ attempts: number; lease_owner: string | null; status: string }>(
        'SELECT attempts, lease_owner, status FROM jobs WHERE id = $1',
        [job.id],
      )
    )[0]!;
    assert.deepEqual(row, { attempts: 0, lease_owner: null, status: 'active' });
    const attempts: number[] = [];
    const second = await startWorker(async (input) => {
      attempts.push(input.attempt);
      return completed();
    });
    await waitFor('completion', async () => (await getJob(db(), project.id, job.id)).status === 'completed');
    assert.deepEqual(attempts, [1]);
    await second.stop(0);
  });

  test('concurrency is respected, and two workers sharing the database run each job exactly once', async () => {
    const { project } = await seedProject(db());
    let running = 0;
    let maxRunning = 0;
    const runs = new Map<string, number>();
    const runner: JobRunner = async ({ job }) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setTimeout(r, 15));
      running--;
      return completed();
    };
    const a = await startWorker(runner, { concurrency: 2, pollIntervalMs: 200 });
    const b = await startWorker(runner, { concurrency: 2, pollIntervalMs: 200 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await newJob(project.id, `job ${i}`)).id);
    await waitFor('all done', async () => {
      const rows = await db().query<{ n: number }>(
        "SELECT count(*)::bigint AS n FROM jobs WHERE project_id = $1 AND status = 'completed'",
        [project.id],
      );
      return rows[0]!.n === 20;
    });
    assert.equal(runs.size, 20);
    assert.ok(
      [...runs.values()].every((n) => n === 1),
      'no job ran twice',
    );
    assert.ok(maxRunning <= 4, `at most 2 per worker ran at once (saw ${maxRunning})`);
    await Promise.all([a.stop(0), b.stop(0)]);
  });
});

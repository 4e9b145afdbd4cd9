// The dashboard's live streams over real HTTP on both backends (LISTEN/NOTIFY on PostgreSQL, the
// in-process signal on PGlite): a job run by a worker with a scripted runner shows up as a row
// frame with its new status and pull request link, the stream ends when nothing is left to
// watch, and the job page's stream resumes after Last-Event-ID without repeating events.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { startSession } from '../../src/modules/accounts/sessions.ts';
import { completeSetup, createSetupToken } from '../../src/modules/accounts/users.ts';
import type { JobRunner } from '../../src/modules/jobs/runner-contract.ts';
import { createJob } from '../../src/modules/jobs/service.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { createDashboardApp } from './helpers.ts';

const PR = 'https://github.com/example/docs/pull/7';

interface Frame {
  id: string | null;
  event: string;
  data: string;
}

/** Reads server-sent events until `until` says stop (or the stream ends), within 20 s. */
async function readFrames(response: Response, until: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let buffer = '';
  const deadline = setTimeout(() => void reader.cancel(), 20_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2) ?? null;
        const event = field('event');
        if (event) frames.push({ id: field('id'), event, data: field('data') ?? '' });
        end = buffer.indexOf('\n\n');
      }
      if (until(frames)) break;
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => {});
  }
  return frames;
}

await forEachBackend('dashboard live streams', ({ db }) => {
  let app: App;
  let base: string;
  let cookie: string;
  let worker: JobWorker;
  // Each run waits for the test to open its stream first: runs take the gate of their time.
  let gate = Promise.withResolvers<void>();
  const release = () => gate.resolve();

  before(async () => {
    const runner: JobRunner = async (input) => {
      await gate.promise;
      await input.event('tool_call', { tool: 'edit_file', path: 'docs/guide.md', ok: true });
      return {
        status: 'completed',
        prLink: PR,
        branch: 'docwright/x-1',
        summary: 'Done',
        stopReason: 'finish',
        usage: null,
      };
    };
    worker = new JobWorker({
      db: db(),
      runner,
      logger: createLogger('silent'),
      concurrency: 1,
      leaseMs: 5000,
      maxAttempts: 1,
    });
    await worker.start();
    ({ app } = await createDashboardApp(db(), { onJobQueued: () => worker.nudge() }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const owner = await completeSetup(db(), {
      token: await createSetupToken(db()),
      email: 'owner@example.com',
      password: 'owner password 1',
    });
    cookie = `dw_session=${(await startSession(db(), owner)).token}`;
  });
  after(async () => {
    await worker.stop(0);
    await app.close();
  });

  test('the jobs list stream sends the row again when the job completes, then ends', async () => {
    gate = Promise.withResolvers<void>();
    const { project } = await seedProject(db());
    const { job } = await createJob(
      db(),
      { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test' },
      {
        projectId: project.id,
        prompt: 'Fix the guide',
        idempotencyKey: null,
      },
    );
    worker.nudge();
    const response = await fetch(
      `${base}/api/dashboard/projects/${project.id}/jobs/live?ids=${job.id},job_notAJob`,
      {
        headers: { cookie },
      },
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    let released = false;
    const frames = await readFrames(response, (seen) => {
      // The first frame is the job as it is now; then let the run finish.
      if (seen.length === 1 && !released) {
        released = true;
        setTimeout(() => release(), 50);
      }
      return seen.some((f) => f.event === 'end');
    });
    const rows = frames.filter((f) => f.event === 'job').map((f) => JSON.parse(f.data));
    assert.equal(rows[0].status, 'active');
    const last = rows.at(-1);
    assert.equal(last.status, 'completed');
    assert.match(last.html, new RegExp(`href="${PR}"`));
    assert.match(last.html, /badge-completed/);
    assert.equal(frames.at(-1)!.event, 'end');
  });

  test('the job page stream sends new events after Last-Event-ID, and the diff note at the end', async () => {
    gate = Promise.withResolvers<void>();
    const { project } = await seedProject(db());
    const { job } = await createJob(
      db(),
      { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test' },
      {
        projectId: project.id,
        prompt: 'Fix the guide',
        idempotencyKey: null,
      },
    );
    worker.nudge();
    const [created] = await db().query<{ id: number }>(
      'SELECT id FROM job_events WHERE job_id = $1 ORDER BY id LIMIT 1',
      [job.id],
    );
    const response = await fetch(`${base}/api/dashboard/projects/${project.id}/jobs/${job.id}/live`, {
      headers: { cookie, 'last-event-id': String(created!.id) },
    });
    let released = false;
    const frames = await readFrames(response, (seen) => {
      if (!released && seen.length > 0) {
        released = true;
        setTimeout(() => release(), 50);
      }
      return seen.some((f) => f.event === 'end');
    });
    const updates = frames.filter((f) => f.event === 'job').map((f) => JSON.parse(f.data));
    const events = updates.flatMap((u) => u.eventsHtml as string[]).join('\n');
    assert.doesNotMatch(events, /event-created/, 'nothing before Last-Event-ID is sent again');
    assert.match(events, /event-started/);
    assert.match(events, /edit_file docs\/guide\.md/);
    assert.match(events, /event-completed/);
    const final = updates.at(-1);
    assert.equal(final.status, 'completed');
    assert.match(final.summaryHtml, new RegExp(PR));
    assert.match(final.diffHtml, /no stored diff|has no diff/);
    // Each frame carries the id of the last event sent so far, for a reconnecting browser: the
    // Last-Event-ID itself while none is new (the worker may not have started the job when the
    // stream opened), then the ids of the new events.
    const ids = frames.filter((f) => f.event === 'job').map((f) => Number(f.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    assert.ok(ids.every((id) => id >= created!.id));
    assert.ok(ids.at(-1)! > created!.id);
  });

  test('the streams need a session', async () => {
    const response = await fetch(`${base}/api/dashboard/projects/prj_x/jobs/live?ids=`);
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { code: string }).code, 'not_signed_in');
  });
});

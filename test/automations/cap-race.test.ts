// Two automation workers deciding two runs of one automation at the same moment, on PostgreSQL
// (PGlite has one connection: nothing runs side by side there). A run's job is created after the
// transaction that checked the caps; the test holds job creation back (an EXCLUSIVE lock on the
// jobs table) so both decisions are taken while neither run has started its job yet. With a
// daily cap of 1, one run starts and the other is skipped; before runs reserved their start in
// the deciding transaction, both started.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { triggerAutomation } from '../../src/modules/automations/intake.ts';
import { createAutomation } from '../../src/modules/automations/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('automation caps with two workers', ({ backend, db }) => {
  const workers: AutomationWorker[] = [];
  const twoWorkers = () =>
    [0, 1].map(
      () =>
        new AutomationWorker({
          db: db(),
          logger: createLogger('silent'),
          jobs: { jobRateLimitPerHour: 1000, defaultModel: 'openai:gpt-test' },
          concurrency: 1,
          pollIntervalMs: 50,
        }),
    );
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  const runsOf = (automationId: string) =>
    db().query<{ id: string; status: string; skip_reason: string | null; job_id: string | null }>(
      'SELECT id, status, skip_reason, job_id FROM automation_runs WHERE automation_id = $1 ORDER BY id',
      [automationId],
    );

  for (const limit of ['dailyRunCap', 'maxOpenPullRequests'] as const) {
    test(`${limit} 1 holds when two workers decide at once`, { skip: backend !== 'postgres' }, async () => {
      const { project } = await seedProject(db());
      const automation = await createAutomation(db(), {
        projectId: project.id,
        publicUrl: 'https://docwright.example.test',
        body: {
          name: `Two at once (${limit})`,
          trigger: { type: 'webhook' },
          promptTemplate: 'Update the docs: {{event.body}}',
          limits:
            limit === 'dailyRunCap'
              ? { dailyRunCap: 1, maxOpenPullRequests: 100 }
              : { maxOpenPullRequests: 1 },
        },
      });
      for (const n of [1, 2]) {
        await triggerAutomation(db(), {
          projectId: project.id,
          automationId: automation.id,
          secret: automation.triggerSecret!,
          body: { n },
          idempotencyKey: null,
        });
      }
      await db().transaction(async (tx) => {
        await tx.query('LOCK TABLE jobs IN EXCLUSIVE MODE');
        const started = twoWorkers();
        workers.push(...started);
        await Promise.all(started.map((w) => w.start()));
        // Both runs decided: each is waiting to create its job, or skipped.
        const deadline = Date.now() + 10_000;
        for (;;) {
          const [waiting] = await db().query<{ count: number }>(
            `SELECT count(*)::int AS count FROM pg_locks WHERE NOT granted AND relation = 'jobs'::regclass`,
          );
          const skipped = (await runsOf(automation.id)).filter((r) => r.status === 'skipped').length;
          if (waiting!.count + skipped >= 2 || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 25));
        }
      });
      let runs = await runsOf(automation.id);
      const deadline = Date.now() + 10_000;
      while (runs.some((r) => r.status === 'queued') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        runs = await runsOf(automation.id);
      }
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      assert.deepEqual(runs.map((r) => r.status).sort(), ['skipped', 'started'], JSON.stringify(runs));
      const skipped = runs.find((r) => r.status === 'skipped')!;
      assert.match(
        skipped.skip_reason ?? '',
        limit === 'dailyRunCap' ? /daily run cap reached: 1 runs started today/ : /being started \(max 1\)/,
      );
    });
  }
});

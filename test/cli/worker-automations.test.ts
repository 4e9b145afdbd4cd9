// `docwright worker` runs the automation worker too: a run queued while no docwright serve is up
// is turned into a job by a worker process alone (a real child process on PostgreSQL).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createAutomation, triggerAutomation } from '../../src/modules/automations/index.ts';
import { startWorkerProcess, type WorkerProcess } from '../e2e/worker-process.ts';
import { seedProject } from '../helpers/app.ts';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/databases.ts';
import { cliEnv } from './cli-process.ts';

async function postgresProblem(): Promise<string | false> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return false;
  } catch (error) {
    return process.env.CI === 'true' ? false : `PostgreSQL is unreachable (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

describe('docwright worker runs automation runs (PostgreSQL, a worker process)', {
  skip: await postgresProblem(),
}, () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Database;
  let worker: WorkerProcess | null = null;
  const dataDir = `/dev/shm/docwright-worker-automations-${randomBytes(4).toString('hex')}`;

  before(async () => {
    database = await createPostgresDatabase();
    db = await openPostgres(database.url, { max: 3 });
    await migrate(db);
  });
  after(async () => {
    await worker?.stop('SIGKILL');
    await db?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a run queued with no serve running becomes a job in the worker process', {
    timeout: 60_000,
  }, async () => {
    const seeded = await seedProject(db);
    const automation = await createAutomation(db, {
      projectId: seeded.project.id,
      body: {
        name: 'On demand',
        trigger: { type: 'webhook' },
        promptTemplate: 'Release {{event.body.version}}',
      },
      publicUrl: 'http://docwright.test',
    });
    const { runId } = await triggerAutomation(db, {
      projectId: seeded.project.id,
      automationId: automation.id,
      secret: automation.triggerSecret!,
      body: { version: '3.1' },
      idempotencyKey: null,
    });
    const runRow = async () =>
      (
        await db.query<{ status: string; job_id: string | null }>(
          'SELECT status, job_id FROM automation_runs WHERE id = $1',
          [runId],
        )
      )[0]!;
    assert.equal((await runRow()).status, 'queued', 'nothing runs it in this process');

    worker = await startWorkerProcess(
      cliEnv({
        DATABASE_URL: database.url,
        DOCWRIGHT_SECRET_KEY: randomBytes(32).toString('hex'),
        DOCWRIGHT_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      }),
    );
    const deadline = Date.now() + 30_000;
    let row = await runRow();
    while (row.status === 'queued' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      row = await runRow();
    }
    assert.equal(row.status, 'started', worker.output());
    const [job] = await db.query<{ prompt: string }>('SELECT prompt FROM jobs WHERE id = $1', [row.job_id]);
    assert.equal(job!.prompt, 'Release 3.1');
    assert.match(worker.output(), /"automations":true/);
  });
});

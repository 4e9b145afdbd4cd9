// The dispatcher as `docwright serve` runs it (SERVE_EXTENSIONS, configuration from the
// environment): a job that fails at creation is announced to a local receiver, signed, and the
// dispatcher stops with the server. PostgreSQL, so the test can reach the database that the
// server holds.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { withSecretKey } from '../../src/config/secret-key-file.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { serve } from '../../src/main/serve.ts';
import { createKey } from '../../src/modules/keys/service.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject } from '../../src/modules/projects/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import { tempDataDir } from '../cli/cli-process.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startWebhookReceiver } from '../stand-ins/webhook-receiver.ts';

test('docwright serve sends webhooks, and refuses loopback unless DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE', async () => {
  const database = await createPostgresDatabase();
  const receiver = await startWebhookReceiver();
  const secretKey = randomBytes(32).toString('hex');
  const webhookSecret = randomBytes(24).toString('hex');
  const env = {
    DOCWRIGHT_DATA_DIR: tempDataDir(),
    DATABASE_URL: database.url,
    DOCWRIGHT_SECRET_KEY: secretKey,
    PORT: '0',
    LOG_LEVEL: 'silent',
    DOCWRIGHT_WORKER: 'false', // no model either: jobs fail at creation with model_not_configured
  };
  const runServer = async (extra: Record<string, string>) =>
    serve(withSecretKey(loadConfig({ ...env, ...extra })), {
      logger: createLogger('silent'),
      print: () => {},
    });
  const createFailingJob = async (baseUrl: string, projectId: string, key: string) => {
    const res = await fetch(`${baseUrl}/v2/agent/${projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Document webhooks.' }),
    });
    assert.equal(res.status, 201);
    return (await res.json()) as { id: string; status: string };
  };

  let server = await runServer({ DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE: 'true' });
  const db = await openPostgres(database.url, { max: 2 });
  try {
    const project = await createProject(
      db,
      {
        name: 'Hooked',
        repositoryUrl: 'https://github.com/example/hooked',
        settings: { webhookUrl: `${receiver.origin}/hooks` },
      },
      TEST_REPOSITORIES,
    );
    await setProjectSecret(db, Buffer.from(secretKey, 'hex'), project.id, 'webhookSecret', webhookSecret);
    const key = (await createKey(db, { projectId: project.id, scope: 'admin' })).key;

    const job = await createFailingJob(server.baseUrl, project.id, key);
    assert.equal(job.status, 'failed');
    for (let i = 0; receiver.received.length === 0; i++) {
      assert.ok(i < 1000, 'the webhook arrives');
      await new Promise((r) => setTimeout(r, 20));
    }
    const [hook] = receiver.received;
    const body = JSON.parse(hook!.body);
    assert.equal(body.type, 'job.failed');
    assert.equal(body.job.id, job.id);
    assert.equal(body.job.error.code, 'model_not_configured');
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hook!.headers['docwright-signature'] as string)!;
    assert.equal(createHmac('sha256', webhookSecret).update(`${t}.${hook!.body}`).digest('hex'), v1);
    await server.close();

    // Same setup, default configuration: the receiver on 127.0.0.1 is refused, nothing is sent.
    server = await runServer({});
    const refused = await createFailingJob(server.baseUrl, project.id, key);
    let row: { status: string; last_error: string | null } | undefined;
    for (let i = 0; row?.last_error == null; i++) {
      assert.ok(i < 1000, 'the attempt is recorded');
      await new Promise((r) => setTimeout(r, 20));
      [row] = await db.query<{ status: string; last_error: string | null }>(
        'SELECT status, last_error FROM webhook_deliveries WHERE job_id = $1',
        [refused.id],
      );
    }
    assert.match(
      row!.last_error!,
      /^127\.0\.0\.1 is a loopback, private, link-local or other special-purpose address/,
    );
    assert.equal(row!.status, 'pending', 'refused attempts are retried later (the setting may change)');
    assert.equal(receiver.received.length, 1);
  } finally {
    await server.close().catch(() => {});
    await db.close();
    await receiver.close();
    await database.drop();
  }
});

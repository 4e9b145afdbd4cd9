// The CLI's automations commands as child processes against a real server started in the test:
// create each trigger kind, list, get, update, runs, delete; mistakes exit 2 and name the flag.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { Automation } from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { type LiveServer, startLiveServer } from '../sdk/live-server.ts';
import { type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

let db: Database;
let server: LiveServer;
let env: NodeJS.ProcessEnv;

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  const seeded = await seedProject(db);
  env = cliEnv({
    DOCWRIGHT_URL: server.url,
    DOCWRIGHT_API_KEY: seeded.adminKey,
    DOCWRIGHT_PROJECT: seeded.project.id,
  });
});
after(async () => {
  await server.close();
  await db.close();
});

async function cli(args: string[]): Promise<CliResult> {
  const result = await runCli(args, env);
  assert.doesNotMatch(result.stderr, STACK_LINE);
  return result;
}
const json = <T>(result: CliResult): T => {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};

test('create, list, get, update, runs and delete through the CLI', async () => {
  const watch = json<Automation>(
    await cli([
      'automations',
      'create',
      '--name',
      'Follow the engine',
      '--watch',
      'github:acme/engine',
      '--branch',
      'main',
      '--branch',
      'release',
      '--label',
      'docs',
      '--prompt',
      'Document {{event.title}}',
      '--grouping',
      '--json',
    ]),
  );
  assert.deepEqual(watch.trigger, {
    type: 'code_change',
    host: 'github',
    repository: 'acme/engine',
    on: 'merged_pull_request',
    branches: ['main', 'release'],
    labels: ['docs'],
  });
  assert.equal(watch.limits.grouping, true);

  const hook = await cli(['automations', 'create', '--name', 'On demand', '--webhook', '--prompt', 'Go']);
  assert.equal(hook.code, 0, hook.stderr);
  assert.match(hook.stdout, /secret: {3}dwt_[0-9A-Za-z]{40}/);
  assert.match(hook.stdout, /shown once/);

  const reviews = await cli([
    'automations',
    'create',
    '--name',
    'Answer reviews',
    '--review-comments',
    '@docwright',
    '--prompt',
    'Do what {{event.author}} asks',
  ]);
  assert.equal(reviews.code, 0, reviews.stderr);
  assert.match(reviews.stdout, /trigger: {2}review_comment @docwright/);

  const weekly = json<Automation>(
    await cli([
      'automations',
      'create',
      '--name',
      'Weekly',
      '--cron',
      '0 9 * * 1',
      '--timezone',
      'Europe/Berlin',
      '--prompt',
      'Check',
      '--json',
    ]),
  );
  assert.ok(weekly.nextRunAt);

  const listed = json<Automation[]>(await cli(['automations', 'list', '--json']));
  assert.equal(listed.length, 4);
  assert.match(
    (await cli(['automations', 'get', weekly.id])).stdout,
    /schedule "0 9 \* \* 1" Europe\/Berlin/,
  );

  const updated = json<Automation>(
    await cli(['automations', 'update', weekly.id, '--disable', '--daily-cap', '2', '--json']),
  );
  assert.equal(updated.enabled, false);
  assert.equal(updated.limits.dailyRunCap, 2);
  assert.equal(updated.nextRunAt, null, 'a disabled schedule does not fire');

  assert.match((await cli(['automations', 'runs', watch.id])).stdout, /No runs yet/);
  assert.match((await cli(['automations', 'delete', weekly.id])).stdout, /Deleted/);
  const gone = await cli(['automations', 'get', weekly.id]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /automation_not_found/);

  const mistaken = await cli([
    'automations',
    'create',
    '--name',
    'x',
    '--prompt',
    'p',
    '--webhook',
    '--cron',
    '* * * * *',
  ]);
  assert.equal(mistaken.code, 2);
  assert.match(mistaken.stderr, /one trigger/);
  const badCron = await cli(['automations', 'create', '--name', 'x', '--prompt', 'p', '--cron', 'every day']);
  assert.equal(badCron.code, 1);
  assert.match(badCron.stderr, /invalid_automation/);
});

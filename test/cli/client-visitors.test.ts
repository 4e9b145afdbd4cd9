// `docwright visitors` as a child process against a real server with seeded visitor sketches:
// --json (every page merged) against the typed client, --csv parsed back and compared with the
// JSON export, and the table.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';
import { writeVisitorSets } from '../../src/modules/analytics/store/visitor-writes.ts';
import { DocwrightClient } from '../../src/sdk/index.ts';
import { seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';
import { parseCsv } from '../sdk/csv-parse.ts';
import { type LiveServer, startLiveServer } from '../sdk/live-server.ts';
import { type CliResult, cliEnv, runCli, STACK_LINE } from './cli-process.ts';

const HOUR = Date.UTC(2026, 2, 2, 12) / 1000;
// More paths than one page of 250, so the command must page.
const PATHS = 260;

let db: Database;
let server: LiveServer;
let key: string;
let env: NodeJS.ProcessEnv;
let client: DocwrightClient;
let projectId: string;

before(async () => {
  db = await openTestDatabase('pglite');
  server = await startLiveServer(db);
  const seeded = await seedProject(db);
  projectId = seeded.project.id;
  key = seeded.readKey;
  env = cliEnv({ DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: key, DOCWRIGHT_PROJECT: projectId });
  client = new DocwrightClient({ baseUrl: server.url, apiKey: key });
  const sets = new VisitorSets();
  for (let i = 0; i < PATHS; i++) {
    const path = i === 0 ? '/a,"quoted" path' : `/docs/p${String(i).padStart(3, '0')}`;
    // Visitor ids 0..(i % 7): the same readers on many pages.
    for (let id = 0; id <= i % 7; id++) sets.add(projectId, HOUR, 'human', path, id);
    if (i < 10) sets.add(projectId, HOUR, 'ai', path, 1000 + (i % 3));
  }
  await recordPageViews(db, [
    { projectId, hour: new Date(HOUR * 1000), path: '/docs/p001', trafficClass: 'human', views: 1 },
  ]);
  await db.transaction((tx) => writeVisitorSets(tx, sets));
});
after(async () => {
  await server.close();
  await db.close();
});

async function cli(args: string[]): Promise<CliResult> {
  const result = await runCli(args, env);
  assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key), 'the key was printed');
  assert.doesNotMatch(result.stderr, STACK_LINE);
  return result;
}

test('visitors --json: {totals, visitors} with every page, as the client merges them', async () => {
  const result = await cli(['visitors', '--json']);
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  assert.deepEqual(printed.totals, { human: 7, ai: 3, total: 10 });
  assert.equal(printed.visitors.length, PATHS);
  const report = await client.visitorsReport(projectId);
  assert.deepEqual(printed, { totals: report.totals, visitors: report.visitors });
  assert.deepEqual(printed.visitors[0], { path: '/docs/p006', human: 7, ai: 1, total: 8 });
});

test('visitors --csv parses back to the JSON export; the table has totals first', async () => {
  const [csv, json, table] = await Promise.all([
    cli(['visitors', '--csv']),
    cli(['visitors', '--json']),
    cli(['visitors', '--from', '2026-03-02']),
  ]);
  assert.equal(csv.code, 0, csv.stderr);
  const [header, ...records] = parseCsv(csv.stdout);
  assert.deepEqual(header, ['path', 'human', 'ai', 'total']);
  assert.deepEqual(
    records.map(([path, human, ai, total]) => ({
      path,
      human: Number(human),
      ai: Number(ai),
      total: Number(total),
    })),
    JSON.parse(json.stdout).visitors,
  );
  assert.match(
    table.stdout.split('\n')[0]!,
    /^Distinct visitors \(approximate\) from 2026-03-02T00:00:00\.000Z to now: 10 \(human 7, AI 3\) on 260 pages$/,
  );
});

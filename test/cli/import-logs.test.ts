// `docwright import-logs` as users run it: real child processes on the embedded database (alone,
// and while `docwright serve` holds it, through its control socket) and on PostgreSQL, with
// crashes (kill -9) in the middle of an import followed by a re-run that must give exact counts.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  CHROME,
  cloudflareLine,
  expectedCounts,
  GPTBOT,
  gzip,
  logText,
  sampleHits,
} from '../analytics/import-fixtures.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import {
  apiGet,
  CLI,
  type CliResult,
  cliEnv,
  firstStartCredentials,
  runCli,
  runJson,
  type ServerProcess,
  STACK_LINE,
  startServer,
  tempDataDir,
} from './cli-process.ts';

const hits = sampleHits();
const expected = expectedCounts(hits);

/** Runs the CLI with text on its standard input. */
function runWithStdin(args: string[], env: NodeJS.ProcessEnv, input: Buffer | string): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A big log whose counts are known: line i is a view of /p{i % 40}, by a person or by GPTBot. */
function bigLog(lines: number): { text: string; human: number; ai: number } {
  const out: string[] = [];
  let human = 0;
  let ai = 0;
  const start = Date.UTC(2025, 0, 6);
  for (let i = 0; i < lines; i++) {
    const t = new Date(start + i * 1000);
    const time = `${String(t.getUTCDate()).padStart(2, '0')}/Jan/2025:${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}:${String(t.getUTCSeconds()).padStart(2, '0')} +0000`;
    const bot = i % 3 === 0;
    if (bot) ai++;
    else human++;
    out.push(
      `10.0.${(i >> 8) & 255}.${i & 255} - - [${time}] "GET /p${i % 40} HTTP/1.1" 200 100 "-" "${bot ? GPTBOT : CHROME}"`,
    );
  }
  return { text: `${out.join('\n')}\n`, human, ai };
}

function spawnImport(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, 'import-logs', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Polls until check() answers a number strictly between 0 and total, then kills the import. */
async function killMidway(
  running: { child: ChildProcess; done: Promise<CliResult> },
  progress: () => Promise<number>,
  total: number,
): Promise<number> {
  let finished = false;
  running.done.then(() => (finished = true));
  for (;;) {
    const seen = await progress();
    if (seen > 0 && seen < total) {
      running.child.kill('SIGKILL');
      const result = await running.done;
      assert.equal(result.signal, 'SIGKILL');
      return seen;
    }
    if (finished) {
      const result = await running.done;
      throw new Error(
        `the import ended before it could be killed midway (exit ${result.code}): ${result.stderr}`,
      );
    }
    await sleep(5);
  }
}

describe('import-logs on the embedded database, no server', () => {
  const dataDir = tempDataDir();
  const logDir = join(dirname(dataDir), 'logs');
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  let projectId: string;

  before(async () => {
    mkdirSync(logDir, { recursive: true });
    const project = await runJson<{ id: string }>(
      ['projects', 'create', '--name', 'Docs', '--repository', 'https://github.com/acme/docs', '--json'],
      env,
    );
    projectId = project.id;
  });
  after(() => rmSync(dirname(dataDir), { recursive: true, force: true }));

  test('a combined log and a gzip JSON log with --map: the summary counts lines, classes, drops and malformed line numbers', async () => {
    const combined = join(logDir, 'access.log');
    writeFileSync(combined, logText(hits));
    const json = join(logDir, 'cf.json.gz');
    // Other requests than the combined log's, so both count: shift every time by a day.
    const shifted = hits.map((h) => ('at' in h ? { ...h, at: h.at + 86_400_000 } : h));
    writeFileSync(json, gzip(logText(shifted, cloudflareLine)));
    const result = await runCli(
      [
        'import-logs',
        '--project',
        projectId,
        combined,
        '--json',
        '--no-progress',
        '--map',
        'userAgent=ClientRequestUserAgent',
        '--map',
        'path=ClientRequestURI',
        '--map',
        'timestamp=EdgeStartTimestamp',
        '--map',
        'ip=ClientIP',
        '--map',
        'method=ClientRequestMethod',
        '--map',
        'status=EdgeResponseStatus',
        json,
      ],
      env,
    );
    // --map implies JSON for every log named: the combined one is then refused, alone.
    assert.equal(result.code, 1, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.sources[0].status, 'failed');
    assert.equal(summary.sources[0].error.code, 'import_unrecognised');
    assert.equal(summary.sources[1].status, 'imported');
    assert.deepEqual(summary.sources[1].byClass, expected.byClass);
    assert.deepEqual(summary.sources[1].dropped, expected.dropped);
    assert.deepEqual(
      summary.sources[1].malformedLines.map((m: { line: number }) => m.line),
      expected.malformedLines,
    );

    const text = await runCli(['import-logs', '--project', projectId, combined], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`access\\.log: ${hits.length} lines, ${hits.length} new`));
    assert.match(
      text.stdout,
      new RegExp(
        `accepted +${expected.rows.reduce((t, r) => t + r.views, 0)} \\(human ${expected.byClass.human}, ai ${expected.byClass.ai}, bot ${expected.byClass.bot}\\)`,
      ),
    );
    assert.match(text.stdout, /dropped +5 \(.*asset 2.*\)/);
    for (const line of expected.malformedLines)
      assert.match(text.stdout, new RegExp(`line ${line}: not in the combined`));
    assert.match(text.stdout, /directly in the embedded database/);
    assert.doesNotMatch(text.stderr, STACK_LINE);
  });

  test('standard input (-), plain then gzip: the second is the same log and adds nothing', async () => {
    const log = logText(hits.map((h) => ('at' in h ? { ...h, at: h.at + 2 * 86_400_000 } : h)));
    const first = await runWithStdin(['import-logs', '--project', projectId, '--json', '-'], env, log);
    assert.equal(first.code, 0, first.stderr);
    const one = JSON.parse(first.stdout).sources[0];
    assert.equal(one.source, '-');
    assert.equal(one.newLines, hits.length);
    const second = await runWithStdin(['import-logs', '--project', projectId, '--json', '-'], env, gzip(log));
    assert.equal(second.code, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).sources[0].status, 'up_to_date');
  });

  test('mistakes: an unknown project (1), a missing file (1, others imported), bad --map or --preset with --format combined (2)', async () => {
    const unknown = await runCli(['import-logs', '--project', 'prj_nope', join(logDir, 'access.log')], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No project has the id "prj_nope"/);
    assert.doesNotMatch(unknown.stderr, STACK_LINE);

    const fresh = join(logDir, 'fresh.log');
    writeFileSync(fresh, logText(hits.map((h) => ('at' in h ? { ...h, at: h.at + 3 * 86_400_000 } : h))));
    const missing = await runCli(
      ['import-logs', '--project', projectId, join(logDir, 'nope.log'), fresh],
      env,
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /nope\.log: FAILED: cannot read .*nope\.log: no such file/);
    assert.match(missing.stdout, /fresh\.log: 20 lines, 20 new/);

    const badMap = await runCli(['import-logs', '--project', projectId, '--map', 'agent=x', fresh], env);
    assert.equal(badMap.code, 2);
    assert.match(badMap.stderr, /unknown field "agent"/);
    const mixed = await runCli(
      ['import-logs', '--project', projectId, '--format', 'combined', '--preset', 'vercel', fresh],
      env,
    );
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /--preset and --map apply to JSON logs/);
  });
});

describe('import-logs while `docwright serve` holds the embedded database', () => {
  const dataDir = tempDataDir();
  const logDir = join(dirname(dataDir), 'logs');
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  let server: ServerProcess;
  let projectId: string;
  let key: string;

  before(async () => {
    mkdirSync(logDir, { recursive: true });
    server = await startServer(env);
    const first = firstStartCredentials(server.stdout());
    assert.ok(first);
    ({ projectId, key } = first);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  const totals = async (): Promise<{ human: number; ai: number; total: number }> => {
    const res = await apiGet(`${server.url}/v1/analytics/${projectId}/views?limit=1`, key);
    assert.equal(res.status, 200);
    return ((await res.json()) as { totals: { human: number; ai: number; total: number } }).totals;
  };

  test('the import goes through the server: its export shows the counts at once; a second import adds nothing', async () => {
    const path = join(logDir, 'access.log');
    writeFileSync(path, logText(hits));
    const result = await runCli(['import-logs', '--project', projectId, path], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /through the running server \(pid \d+/);
    assert.deepEqual(await totals(), {
      human: expected.byClass.human,
      ai: expected.byClass.ai,
      total: expected.byClass.human + expected.byClass.ai,
    });
    const again = await runCli(['import-logs', '--project', projectId, path], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing new to import/);
    assert.equal((await totals()).total, expected.byClass.human + expected.byClass.ai);
    const commands = server
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"admin command"') && l.includes('import-logs chunk'));
    assert.ok(commands.length >= 1, 'the server applied the chunks');
  });

  test("today's lines take the server's stored visitor salt through the control socket", async () => {
    const now = Date.now();
    const clf = (ms: number) => {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      const month = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
      return `${two(d.getUTCDate())}/${month}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
    };
    const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
    const line = (ms: number, target: string) =>
      `198.51.100.9 - - [${clf(ms)}] "GET ${target} HTTP/1.1" 200 10 "https://chatgpt.com/" "${ua}"\n`;
    const path = join(logDir, 'today.log');
    writeFileSync(path, line(now - 2000, '/today') + line(now - 1000, '/today'));
    const result = await runCli(['import-logs', '--project', projectId, path], env);
    assert.equal(result.code, 0, result.stderr);
    const day = new Date(now).toISOString().slice(0, 10);
    const next = new Date(now + 86_400_000).toISOString().slice(0, 10);
    const visitors = await apiGet(
      `${server.url}/v1/analytics/${projectId}/visitors?dateFrom=${day}&dateTo=${next}`,
      key,
    );
    assert.deepEqual(((await visitors.json()) as { totals: unknown }).totals, { human: 1, ai: 0, total: 1 });
    const referrals = await apiGet(
      `${server.url}/v1/analytics/${projectId}/referrals?dateFrom=${day}&dateTo=${next}`,
      key,
    );
    assert.deepEqual(((await referrals.json()) as { totals: unknown }).totals, { views: 2 });
    assert.ok(
      server
        .stdout()
        .split('\n')
        .some((l) => l.includes('"admin command"') && l.includes('import-logs salt')),
      'the salt came from the server',
    );
  });

  test('kill -9 of the import midway, then a re-run: exact counts', async () => {
    const before = await totals();
    const big = bigLog(60_000);
    const path = join(logDir, 'big.log.gz');
    writeFileSync(path, gzip(big.text));
    const args = ['--project', projectId, '--chunk-lines', '300', '--no-progress', path];
    const seen = await killMidway(
      spawnImport(args, env),
      async () => (await totals()).total - before.total,
      big.human + big.ai,
    );
    assert.ok(seen > 0 && seen < big.human + big.ai);
    const rerun = await runCli(['import-logs', ...args, '--json'], env);
    assert.equal(rerun.code, 0, rerun.stderr);
    const summary = JSON.parse(rerun.stdout).sources[0];
    assert.ok(summary.alreadyImported > 0, 'the re-run skipped what the killed import had committed');
    assert.equal(summary.alreadyImported + summary.newLines, 60_000);
    const after = await totals();
    assert.equal(after.human - before.human, big.human);
    assert.equal(after.ai - before.ai, big.ai);
  });
});

describe('import-logs when the server it goes through dies (kill -9) midway', () => {
  const dataDir = tempDataDir();
  const logDir = join(dirname(dataDir), 'logs');
  const env = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  after(() => rmSync(dirname(dataDir), { recursive: true, force: true }));

  test('the import carries on, on the database the server left behind; after a restart the counts are exact', async () => {
    mkdirSync(logDir, { recursive: true });
    let server = await startServer(env);
    const { projectId, key } = firstStartCredentials(server.stdout())!;
    const totals = async (url: string) => {
      const res = await apiGet(`${url}/v1/analytics/${projectId}/views?limit=1`, key);
      return ((await res.json()) as { totals: { human: number; ai: number; total: number } }).totals;
    };
    const big = bigLog(60_000);
    const path = join(logDir, 'big.log');
    writeFileSync(path, big.text);
    const running = spawnImport(['--project', projectId, '--chunk-lines', '300', '--no-progress', path], env);
    // Kill the server, not the import, once part of the log is in.
    for (;;) {
      const seen = (await totals(server.url)).total;
      if (seen > 0) {
        assert.ok(seen < big.human + big.ai, 'the server died midway');
        break;
      }
      await sleep(5);
    }
    await server.stop('SIGKILL');
    const result = await running.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /60,000 lines, 60,000 new/);
    assert.match(result.stdout, /directly in the embedded database/, 'it finished on the database itself');
    server = await startServer(env);
    try {
      const after = await totals(server.url);
      assert.equal(after.human, big.human);
      assert.equal(after.ai, big.ai);
    } finally {
      await server.stop();
    }
  });
});

describe('import-logs on PostgreSQL (DATABASE_URL)', () => {
  let url: string;
  let drop: () => Promise<void>;
  let env: NodeJS.ProcessEnv;
  let projectId: string;
  const dataDir = tempDataDir();
  const logDir = join(dirname(dataDir), 'logs');

  before(async () => {
    mkdirSync(logDir, { recursive: true });
    ({ url, drop } = await createPostgresDatabase());
    env = cliEnv({ DATABASE_URL: url, DOCWRIGHT_SECRET_KEY: 'ab'.repeat(32), DOCWRIGHT_DATA_DIR: dataDir });
    const project = await runJson<{ id: string }>(
      ['projects', 'create', '--name', 'Docs', '--repository', 'https://github.com/acme/docs', '--json'],
      env,
    );
    projectId = project.id;
  });
  after(async () => {
    await drop?.();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  test('kill -9 midway, then a re-run: exact counts, and the ledger at the last line', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const big = bigLog(60_000);
      const path = join(logDir, 'big.log');
      writeFileSync(path, big.text);
      const args = ['--project', projectId, '--chunk-lines', '300', '--no-progress', path];
      const ledgerLines = async () =>
        Number((await client.query('SELECT coalesce(max(lines), 0) AS n FROM log_imports')).rows[0].n);
      await killMidway(spawnImport(args, env), ledgerLines, 60_000);
      const rerun = await runCli(['import-logs', ...args], env);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stdout, /directly in PostgreSQL/);
      const counts = await client.query<{ traffic_class: string; views: string }>(
        `SELECT traffic_class, sum(views) AS views FROM page_views_hourly WHERE project_id = $1 GROUP BY 1 ORDER BY 1`,
        [projectId],
      );
      assert.deepEqual(
        counts.rows.map((r) => [r.traffic_class, Number(r.views)]),
        [
          ['ai', big.ai],
          ['human', big.human],
        ],
      );
      assert.equal(await ledgerLines(), 60_000);
    } finally {
      await client.end();
    }
  });
});

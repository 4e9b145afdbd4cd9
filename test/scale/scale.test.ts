// docwright at scale on one PostgreSQL database, with real processes: two API processes
// (`docwright serve`, DOCWRIGHT_WORKER=false) and two job workers (`docwright worker`), each with
// its own data directory, as on separate machines.
//
// - 200 agent jobs, created through both API processes, run by the scripted model (read → edit →
//   finish) against a real git server, and published on the GitHub fake served under /api/v3 as
//   GitHub Enterprise Server does (the project's codeHostBaseUrl is the fake's address). Every job
//   ends exactly once (completed, with one completion event) and has exactly one pull request.
//   The fake runs without Prism here: the GitHub tests check its answers against GitHub's OpenAPI
//   description already, and Prism's proxy would be the bottleneck of this test, not docwright.
// - One worker is killed with SIGKILL halfway, while it holds jobs: they are taken again by the
//   other worker after their lease (DOCWRIGHT_JOB_LEASE_SECONDS=3) and end like the rest.
// - Meanwhile page views are sent to both API processes; the export sums them exactly, from either.
// - The surviving worker's /metrics (DOCWRIGHT_METRICS_PORT) count exactly the outcomes it wrote.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createKey } from '../../src/modules/keys/service.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject } from '../../src/modules/projects/service.ts';
import { cliEnv, logLines, type ServerProcess, startServer, tempDataDir } from '../cli/cli-process.ts';
import { type CodeHostLink, startCodeHostLink } from '../e2e/code-host-link.ts';
import { gitAuthorization, newToken, OWNER, REPO } from '../e2e/code-host-stands.ts';
import { GUIDE_EDIT } from '../e2e/scripts.ts';
import { startWorkerProcess, type WorkerProcess } from '../e2e/worker-process.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { parseExposition } from '../metrics/prometheus-text.ts';
import { type GitHttpServer, startGitHttpServer } from '../stand-ins/git-http-server.ts';
import { GitHubFake } from '../stand-ins/github-fake.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

const JOBS = 200;
const KILL_AFTER_COMPLETED = JOBS / 2;
const REPOSITORY = `${OWNER}/${REPO}`;
const MODEL_KEY = `sk-scale-${randomBytes(12).toString('hex')}`;
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)';

interface JobJson {
  id: string;
  status: string;
  prLink: string | null;
  branch: string | null;
  error: { code: string; message: string } | null;
}

/** Runs fn over items with at most `width` calls in flight. */
async function inParallel<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await fn(items[index]!, index);
      }
    }),
  );
  return results;
}

async function eventually<T>(what: string, check: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('two API processes and two workers on one PostgreSQL', { timeout: 280_000 }, () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Database;
  let git: GitHttpServer;
  let llm: ScriptedLlmServer;
  let github: GitHubFake;
  let link: CodeHostLink;
  let token: string;
  let projectId: string;
  let adminKey: string;
  let ingestKey: string;
  let serverEnv: NodeJS.ProcessEnv;
  let workerEnv: (name: string) => NodeJS.ProcessEnv;
  const apis: ServerProcess[] = [];
  const workers: WorkerProcess[] = [];
  const dataDirs: string[] = [];

  before(async () => {
    database = await createPostgresDatabase();
    db = await openPostgres(database.url, { max: 4 });
    await migrate(db);
    token = newToken('github');
    git = await startGitHttpServer({ authorization: gitAuthorization('github', token) });
    await git.createRepo(REPOSITORY);
    llm = await startScriptedLlmServer({ apiKey: MODEL_KEY });
    // Every job has the same conversation, so the answer depends only on where it stands.
    llm.setFallback((request) => {
      const turn = request.assistantTurns;
      if (turn === 0) return reply.toolCall('read_file', { path: 'docs/guide.md' }, { delayMs: 20 });
      if (turn === 1) return reply.toolCall('edit_file', GUIDE_EDIT, { delayMs: 20 });
      return reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'Explained --yes.' });
    });
    github = new GitHubFake({ apiPrefix: '/api/v3', webUrl: 'https://github.example.test', tokens: [token] });
    await github.start();
    github.addRepo({ owner: OWNER, name: REPO });
    link = await startCodeHostLink({
      target: github.url,
      bareRepository: git.repoPath(REPOSITORY),
      addBranch: (branch) => github.addBranch(OWNER, REPO, branch),
    });

    const secretKey = randomBytes(32);
    const project = await createProject(
      db,
      {
        name: 'Docs at scale',
        repositoryUrl: git.repoUrl(REPOSITORY),
        codeHostKind: 'github',
        // GitHub Enterprise Server: the adapter calls <base>/api/v3, where the fake serves the API.
        codeHostBaseUrl: link.url,
        model: 'openai:gpt-scale',
      },
      TEST_REPOSITORIES,
    );
    projectId = project.id;
    await setProjectSecret(db, secretKey, projectId, 'codeHostToken', token);
    adminKey = (await createKey(db, { projectId, scope: 'admin' })).key;
    ingestKey = (await createKey(db, { projectId, scope: 'ingest' })).key;

    const shared = {
      DATABASE_URL: database.url,
      DOCWRIGHT_SECRET_KEY: secretKey.toString('hex'),
      LOG_LEVEL: 'info',
      // The git server and the code-host fake are on 127.0.0.1.
      DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE: 'true',
    };
    serverEnv = cliEnv({ ...shared, DOCWRIGHT_WORKER: 'false', DOCWRIGHT_JOB_RATE_LIMIT: '10000' });
    workerEnv = () => {
      const dataDir = tempDataDir();
      dataDirs.push(dataDir);
      return cliEnv({
        ...shared,
        DOCWRIGHT_DATA_DIR: dataDir,
        DOCWRIGHT_WORKER_CONCURRENCY: '4',
        DOCWRIGHT_JOB_LEASE_SECONDS: '3',
        DOCWRIGHT_METRICS_PORT: '0',
        OPENAI_API_KEY: MODEL_KEY,
        OPENAI_BASE_URL: llm.baseURL,
      });
    };
    for (let i = 0; i < 2; i++) {
      const dataDir = tempDataDir();
      dataDirs.push(dataDir);
      apis.push(await startServer({ ...serverEnv, DOCWRIGHT_DATA_DIR: dataDir }));
    }
    for (let i = 0; i < 2; i++) workers.push(await startWorkerProcess(workerEnv(`worker-${i}`)));
  });

  after(async () => {
    await Promise.allSettled(workers.map((w) => w.stop('SIGKILL')));
    await Promise.allSettled(apis.map((a) => a.stop('SIGTERM')));
    await Promise.allSettled([link?.close(), github?.stop(), llm?.close(), git?.close()]);
    await db?.close();
    await database?.drop();
    await Promise.allSettled(dataDirs.map((d) => rm(dirname(d), { recursive: true, force: true })));
  });

  const api = (i: number) => apis[i % apis.length]!.url;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  test('200 jobs end exactly once with one pull request each; a worker killed halfway loses none; page views sum exactly', async (t) => {
    const startedAt = Date.now();
    // Page views go to both API processes while the jobs run: known counts per path and class.
    const start = new Date(Date.now() - 3 * 3_600_000);
    start.setUTCMinutes(0, 0, 0);
    const expected = new Map<string, { human: number; ai: number }>();
    const batches = Array.from({ length: 40 }, (_, b) =>
      Array.from({ length: 250 }, (_, r) => {
        const path = `/page-${(b * 7 + r) % 23}`;
        const ai = (b + r) % 3 === 0;
        const counts = expected.get(path) ?? { human: 0, ai: 0 };
        if (ai) counts.ai++;
        else counts.human++;
        expected.set(path, counts);
        return {
          path,
          userAgent: ai ? GPTBOT : CHROME,
          timestamp: new Date(start.getTime() + ((b * 250 + r) % 7200) * 1000).toISOString(),
        };
      }),
    );
    const ingestion = inParallel(batches, 4, async (records, i) => {
      const res = await fetch(`${api(i)}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { ...auth(ingestKey), 'content-type': 'application/json' },
        body: JSON.stringify(records),
      });
      const body = await res.text();
      assert.equal(res.status, 202, body);
      const answer = JSON.parse(body) as { accepted: number; rejected: unknown[] };
      assert.equal(answer.accepted, records.length);
    });

    const created = await inParallel(
      Array.from({ length: JOBS }, (_, i) => i),
      8,
      async (i) => {
        const res = await fetch(`${api(i)}/v2/agent/${projectId}/job`, {
          method: 'POST',
          headers: { ...auth(adminKey), 'content-type': 'application/json', 'idempotency-key': `scale-${i}` },
          body: JSON.stringify({ prompt: `Document the --yes flag (scale job ${i})` }),
        });
        const body = await res.text();
        assert.equal(res.status, 201, body);
        return (JSON.parse(body) as JobJson).id;
      },
    );
    assert.equal(new Set(created).size, JOBS);

    // Halfway, kill -9 the first worker while it holds jobs.
    const [victim, survivor] = [workers[0]!, workers[1]!];
    const held = await eventually(
      `${KILL_AFTER_COMPLETED} completed jobs and the first worker holding some`,
      async () => {
        const [done] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM jobs WHERE project_id = $1 AND status = 'completed'`,
          [projectId],
        );
        if (done!.n < KILL_AFTER_COMPLETED) return null;
        const rows = await db.query<{ id: string }>(
          `SELECT id FROM jobs WHERE status = 'active' AND lease_owner = $1 AND lease_expires_at > now()`,
          [victim.workerId],
        );
        return rows.length > 0 ? rows.map((r) => r.id) : null;
      },
      150_000,
    );
    const killed = await victim.stop('SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');
    // A job the victim finished between that look and the kill was not lost; ask again now that it
    // cannot move: the jobs it still held when it died are the ones that must go to the survivor.
    const heldAtDeath = (
      await db.query<{ id: string }>(`SELECT id FROM jobs WHERE status = 'active' AND lease_owner = $1`, [
        victim.workerId,
      ])
    ).map((r) => r.id);
    assert.ok(
      heldAtDeath.length > 0,
      `the victim finished all ${held.length} jobs it held before the kill landed`,
    );

    await eventually(
      'every job to end',
      async () => {
        const [left] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM jobs WHERE project_id = $1 AND status = 'active'`,
          [projectId],
        );
        return left!.n === 0 ? true : null;
      },
      150_000,
    );
    await ingestion;

    // Every job completed, through either API process, with a pull request link.
    const jobs = await inParallel(created, 8, async (id, i) => {
      const res = await fetch(`${api(i + 1)}/v2/agent/${projectId}/job/${id}`, { headers: auth(adminKey) });
      assert.equal(res.status, 200);
      return (await res.json()) as JobJson;
    });
    const failed = jobs.filter((j) => j.status !== 'completed');
    assert.deepEqual(
      failed.map((j) => [j.id, j.status, j.error?.code]),
      [],
      'every job completed',
    );

    // Exactly one completion event per job, and no failure.
    const outcomes = await db.query<{ job_id: string; completed: number; failed: number }>(
      `SELECT job_id, count(*) FILTER (WHERE type = 'completed')::int AS completed,
              count(*) FILTER (WHERE type = 'failed')::int AS failed
         FROM job_events WHERE job_id = ANY($1) GROUP BY job_id`,
      [created],
    );
    assert.equal(outcomes.length, JOBS);
    for (const row of outcomes) assert.deepEqual([row.completed, row.failed], [1, 0], row.job_id);

    // One pull request per job: distinct branches, each job's link is its branch's one.
    const pulls = github.pulls(OWNER, REPO);
    assert.equal(pulls.length, JOBS, 'no duplicate pull request');
    const byHead = new Map(pulls.map((p) => [p.head, p]));
    assert.equal(byHead.size, JOBS);
    for (const job of jobs) {
      const pull = byHead.get(job.branch ?? '');
      assert.ok(pull, `a pull request for ${job.branch}`);
      assert.equal(job.prLink, pull.html_url);
    }

    // The killed worker's jobs went to attempt 2 on the survivor.
    for (const id of heldAtDeath) {
      const starts = await db.query<{ data: { attempt: number; worker: string } }>(
        `SELECT data FROM job_events WHERE job_id = $1 AND type = 'started' ORDER BY id`,
        [id],
      );
      assert.deepEqual(
        starts.map((s) => [s.data.attempt, s.data.worker]),
        [
          [1, victim.workerId],
          [2, survivor.workerId],
        ],
        `job ${id}`,
      );
    }

    // Page views: the export sums both API processes' ingestion exactly, read from either.
    const day = start.toISOString().slice(0, 10);
    const next = new Date(start.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    const human = [...expected.values()].reduce((n, c) => n + c.human, 0);
    const ai = [...expected.values()].reduce((n, c) => n + c.ai, 0);
    assert.equal(human + ai, 40 * 250);
    for (const i of [0, 1]) {
      const res = await fetch(
        `${api(i)}/v1/analytics/${projectId}/views?dateFrom=${day}&dateTo=${next}&limit=100`,
        { headers: auth(adminKey) },
      );
      assert.equal(res.status, 200);
      const report = (await res.json()) as {
        totals: { human: number; ai: number; total: number };
        views: { path: string; human: number; ai: number; total: number }[];
        hasMore: boolean;
      };
      assert.deepEqual(report.totals, { human, ai, total: human + ai });
      assert.equal(report.hasMore, false);
      assert.deepEqual(
        Object.fromEntries(report.views.map((v) => [v.path, { human: v.human, ai: v.ai }])),
        Object.fromEntries(expected),
      );
    }

    // The survivor's metrics count exactly the outcomes it wrote: the jobs whose last start was its.
    const metricsUrl = logLines(survivor.output()).find((l) => l.msg === 'worker started')?.metrics;
    assert.ok(typeof metricsUrl === 'string', 'the worker logged its metrics address');
    const lastStarts = await db.query<{ worker: string; steps: number }>(
      `SELECT DISTINCT ON (e.job_id) e.data->>'worker' AS worker, (j.usage->>'steps')::int AS steps
         FROM job_events e JOIN jobs j ON j.id = e.job_id
        WHERE e.job_id = ANY($1) AND e.type = 'started'
        ORDER BY e.job_id, e.id DESC`,
      [created],
    );
    const mine = lastStarts.filter((r) => r.worker === survivor.workerId);
    const metrics = parseExposition(await (await fetch(metricsUrl)).text());
    t.diagnostic(
      `${JOBS} jobs in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; killed worker held ${heldAtDeath.length}; survivor finished ${mine.length}`,
    );
    assert.equal(
      metrics.value('docwright_jobs_finished_total', { status: 'completed', code: '' }),
      mine.length,
    );
    assert.equal(
      metrics.value('docwright_agent_steps_total'),
      mine.reduce((n, r) => n + r.steps, 0),
    );
    assert.equal(metrics.value('docwright_worker_running_jobs'), 0);
    assert.equal(metrics.value('docwright_jobs', { status: 'completed' }), JOBS);

    // The API processes' own metrics: every job creation and every ingest batch was timed there.
    let creations = 0;
    let ingestRecords = 0;
    for (const server of apis) {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const m = parseExposition(text);
      creations +=
        m.value('docwright_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/v2/agent/:projectId/job',
          status_class: '2xx',
        }) ?? 0;
      ingestRecords += m.value('docwright_ingest_records_total', { source: 'api', outcome: 'accepted' }) ?? 0;
      assert.ok(!text.includes(projectId));
    }
    assert.equal(creations, JOBS);
    assert.equal(ingestRecords, 40 * 250);

    // Nothing secret in any process's output.
    const output = [...workers.map((w) => w.output()), ...apis.map((a) => a.stdout() + a.stderr())].join(
      '\n',
    );
    for (const secret of [token, MODEL_KEY, adminKey, ingestKey]) assert.ok(!output.includes(secret));
    assert.deepEqual(github.secretLeaks, []);
  });
});

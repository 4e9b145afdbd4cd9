// PostgreSQL going away under load, for the real processes: `docwright serve` and `docwright
// worker` reach the database through a TCP proxy that the test cuts (every connection reset, new
// ones refused) again and again while clients ingest page views and create jobs; and again with
// PostgreSQL itself ending their sessions (pg_terminate_backend). Neither process
// may exit; requests caught by a cut answer 503 (database_unavailable, or ingest_unavailable for
// page views that were not committed) with Retry-After; once the network is back both work again
// without a restart, and every page view that got a 202 is counted.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startWorkerProcess, type WorkerProcess } from '../e2e/worker-process.ts';
import { createPostgresDatabase, postgresAvailability } from '../helpers/databases.ts';
import { startTcpProxy, type TcpProxy } from '../metrics/tcp-proxy.ts';
import {
  cliEnv,
  firstStartCredentials,
  type ServerProcess,
  startServer,
  tempDataDir,
} from './cli-process.ts';

// In CI an unreachable server fails the run instead of skipping.
const { problem: unreachable, skip } = await postgresAvailability();

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const CUTS = 8;
const INGEST_CLIENTS = 6;
const JOB_CLIENTS = 2;
const PROGRESS_TIMEOUT_MS = 60_000;

interface Credentials {
  projectId: string;
  key: string;
}

/** What the load saw: acknowledged views, refusals by code, and anything that should not happen. */
interface Tally {
  ackedViews: number;
  acks: number;
  refusedViews: number;
  jobsCreated: string[];
  refusals: Map<string, number>;
  unexpected: string[];
}

async function until(what: string, done: () => boolean, limitMs = PROGRESS_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Checks a refusal's shape, and counts it by code. */
async function noteRefusal(res: Response, tally: Tally, allowed: readonly string[]): Promise<void> {
  const body = (await res.json().catch(() => ({}))) as { code?: string; requestId?: string };
  const code = String(body.code);
  if (res.status !== 503 || !allowed.includes(code) || res.headers.get('retry-after') === null) {
    tally.unexpected.push(`${res.status} ${JSON.stringify(body)}`);
    return;
  }
  tally.refusals.set(code, (tally.refusals.get(code) ?? 0) + 1);
}

async function ingestClient(
  server: ServerProcess,
  credentials: Credentials,
  id: number,
  tally: Tally,
  running: () => boolean,
): Promise<void> {
  for (let seq = 0; running(); seq++) {
    const views = 1 + ((seq * 7 + id) % 13);
    const body = Array.from({ length: views }, (_, i) => ({
      path: `/outage/c${id}/p${i}`,
      userAgent: CHROME,
    }));
    const res = await fetch(`${server.url}/v1/analytics/${credentials.projectId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 202) {
      await res.arrayBuffer();
      tally.ackedViews += views;
      tally.acks++;
    } else {
      tally.refusedViews += views;
      await noteRefusal(res, tally, ['database_unavailable', 'ingest_unavailable']);
      await sleep(20);
    }
  }
}

/** Creates jobs (a transaction each) and lists them, one after another. */
async function jobClient(
  server: ServerProcess,
  credentials: Credentials,
  tally: Tally,
  running: () => boolean,
) {
  const headers = { authorization: `Bearer ${credentials.key}`, 'content-type': 'application/json' };
  while (running()) {
    const created = await fetch(`${server.url}/v2/agent/${credentials.projectId}/job`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Fix the typo in the install guide.' }),
    });
    if (created.status === 201) tally.jobsCreated.push(((await created.json()) as { id: string }).id);
    else await noteRefusal(created, tally, ['database_unavailable']);
    const listed = await fetch(`${server.url}/v2/agent/${credentials.projectId}/jobs`, { headers });
    if (listed.status === 200) await listed.arrayBuffer();
    else await noteRefusal(listed, tally, ['database_unavailable']);
  }
}

async function exportedTotal(server: ServerProcess, credentials: Credentials): Promise<number> {
  const res = await fetch(`${server.url}/v1/analytics/${credentials.projectId}/views?limit=1`, {
    headers: { authorization: `Bearer ${credentials.key}` },
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { totals: { total: number } }).totals.total;
}

async function jobStatus(server: ServerProcess, credentials: Credentials, id: string): Promise<string> {
  const res = await fetch(`${server.url}/v2/agent/${credentials.projectId}/job/${id}`, {
    headers: { authorization: `Bearer ${credentials.key}` },
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { status: string }).status;
}

/** What a process printed besides its JSON log lines: an uncaught error's report. */
const plainLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => !line.startsWith('{') || line.includes('"level":60'))
    .join('\n')
    .slice(-4000);

const alive = (child: { exitCode: number | null; signalCode: NodeJS.Signals | null }) =>
  child.exitCode === null && child.signalCode === null;

/** The ways of breaking the database: the network between, and the server ending the sessions. */
const BREAKAGES: {
  name: string;
  breakOnce: (proxy: TcpProxy, databaseUrl: string, round: number) => Promise<void>;
}[] = [
  {
    name: 'the network to PostgreSQL is cut (every connection reset, new ones refused for a while)',
    async breakOnce(proxy, _databaseUrl, round) {
      proxy.cut();
      await sleep(200 + 100 * (round % 3));
      proxy.restore();
    },
  },
  {
    name: "PostgreSQL ends docwright's sessions (pg_terminate_backend)",
    async breakOnce(_proxy, databaseUrl) {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
      } finally {
        await admin.end();
      }
    },
  },
];

for (const { name, breakOnce: breakWith } of BREAKAGES)
  describe(`PostgreSQL broken again and again under load: ${name}`, { skip }, () => {
    let database: { url: string; drop: () => Promise<void> };
    let proxy: TcpProxy;
    const dataDirs = [tempDataDir(), tempDataDir()];
    let server: ServerProcess | null = null;
    let worker: WorkerProcess | null = null;

    before(async () => {
      if (unreachable) throw new Error(`${unreachable}; CI=true requires it`);
      database = await createPostgresDatabase();
      const real = new URL(database.url);
      proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    });
    after(async () => {
      proxy?.restore();
      if (server && alive(server.child)) await server.stop('SIGKILL');
      if (worker && alive(worker.child)) await worker.stop('SIGKILL');
      await proxy?.close();
      await database?.drop();
      for (const dir of dataDirs) rmSync(dirname(dir), { recursive: true, force: true });
    });

    const breakOnce = (round: number) => breakWith(proxy, database.url, round);

    test('serve and worker stay up, answer 503 meanwhile, recover, and lose no acknowledged view', async () => {
      const through = new URL(database.url);
      through.host = `127.0.0.1:${proxy.port}`;
      const common = {
        DATABASE_URL: through.toString(),
        DOCWRIGHT_SECRET_KEY: randomBytes(32).toString('hex'),
        DOCWRIGHT_JOB_RATE_LIMIT: '1000000',
        // Jobs fail at once (no model key): a stream of outcomes for the worker to write.
        DOCWRIGHT_MODEL: 'openai:gpt-test',
      };
      server = await startServer(
        cliEnv({ ...common, DOCWRIGHT_DATA_DIR: dataDirs[0]!, DOCWRIGHT_WORKER: 'false' }),
      );
      worker = await startWorkerProcess(cliEnv({ ...common, DOCWRIGHT_DATA_DIR: dataDirs[1]! }));
      const printed = firstStartCredentials(server.stdout());
      assert.ok(printed, server.stdout());
      const credentials = { projectId: printed.projectId, key: printed.key };

      const tally: Tally = {
        ackedViews: 0,
        acks: 0,
        refusedViews: 0,
        jobsCreated: [],
        refusals: new Map(),
        unexpected: [],
      };
      let running = true;
      const s = server;
      const w = worker;
      const load = [
        ...Array.from({ length: INGEST_CLIENTS }, (_, id) =>
          ingestClient(s, credentials, id, tally, () => running && alive(s.child)),
        ),
        ...Array.from({ length: JOB_CLIENTS }, () =>
          jobClient(s, credentials, tally, () => running && alive(s.child)),
        ),
      ];
      const settled = Promise.allSettled(load);
      try {
        for (let cut = 0; cut < CUTS; cut++) {
          // Cut while requests, commits and job outcomes are in full flow.
          const acks = tally.acks;
          const jobs = tally.jobsCreated.length;
          await until(
            `progress before cut ${cut}`,
            () =>
              !alive(s.child) ||
              !alive(w.child) ||
              (tally.acks >= acks + 20 && tally.jobsCreated.length > jobs),
          );
          await breakOnce(cut);
          if (!alive(s.child) || !alive(w.child)) break;
        }
        // After the last cut, both work again: views are acknowledged and jobs created.
        const acks = tally.acks;
        const jobs = tally.jobsCreated.length;
        await until(
          'progress after the cuts',
          () => !alive(s.child) || (tally.acks >= acks + 20 && tally.jobsCreated.length > jobs),
        );
      } finally {
        running = false;
        await settled;
      }

      assert.ok(alive(s.child), `docwright serve exited:\n${plainLines(s.stdout() + s.stderr())}`);
      assert.ok(
        alive(w.child),
        `docwright worker exited (${w.child.exitCode ?? w.child.signalCode}):\n${plainLines(w.output())}`,
      );
      const results = await settled;
      for (const result of results) {
        if (result.status === 'rejected')
          assert.fail(`a client failed at the transport level: ${result.reason}`);
      }
      assert.deepEqual(tally.unexpected, [], 'every refusal is a 503 with a known code and Retry-After');
      assert.ok(
        (tally.refusals.get('database_unavailable') ?? 0) + (tally.refusals.get('ingest_unavailable') ?? 0) >
          0,
        'the cuts were felt',
      );

      // Every acknowledged view is counted. A refused batch may be counted too, in whole: when the
      // connection drops after PostgreSQL committed but before it said so, docwright cannot know.
      const total = await exportedTotal(s, credentials);
      assert.ok(total >= tally.ackedViews, `${total} counted, ${tally.ackedViews} acknowledged`);
      assert.ok(total <= tally.ackedViews + tally.refusedViews, `${total} counted, more than was sent`);

      // The worker took up work again: the last job created leaves `active` (it fails for want of a
      // model key, which is an outcome written by the worker).
      const last = tally.jobsCreated.at(-1)!;
      let status = 'active';
      const deadline = Date.now() + PROGRESS_TIMEOUT_MS;
      while (status === 'active' && Date.now() < deadline) {
        status = await jobStatus(s, credentials, last);
        if (status === 'active') await sleep(200);
      }
      assert.notEqual(status, 'active', 'the worker ran the job created after the cuts');
      assert.ok(
        alive(w.child),
        `docwright worker exited (${w.child.exitCode ?? w.child.signalCode}):\n${plainLines(w.output())}`,
      );
    });
  });

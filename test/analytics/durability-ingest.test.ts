// Durability of acknowledged ingestion: the real CLI server (`docwright serve`) is killed with
// SIGKILL while several clients ingest; after a restart on the same data, every batch that got a
// 202 is counted, exactly once, and no batch is counted in part. Each batch has a path of its own
// and a known number of records, so the export says exactly which batches landed: acknowledged
// ones must all be there, ones whose answer was lost in the kill may be there or not (in whole),
// refused ones (503) must not be. Run on the embedded PGlite (data directory on /dev/shm) and on
// PostgreSQL (DATABASE_URL).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import {
  cliEnv,
  firstStartCredentials,
  type ServerProcess,
  startServer,
  tempDataDir,
} from '../cli/cli-process.ts';
import { createPostgresDatabase, TEST_DATABASE_URL } from '../helpers/databases.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const CLIENTS = 4;
/** Acknowledged batches to wait for before the kill (so commits are running when it comes). */
const ACKED_BEFORE_KILL = 120;

type Outcome = 'acked' | 'refused' | 'lost';
interface Batch {
  path: string;
  records: number;
  outcome?: Outcome;
}

interface Credentials {
  projectId: string;
  key: string;
}

/** One client: sends batches one after another until a request fails at the transport level. */
async function client(
  server: ServerProcess,
  credentials: Credentials,
  id: number,
  batches: Batch[],
  onAck: () => void,
): Promise<void> {
  for (let seq = 0; ; seq++) {
    const batch: Batch = { path: `/durable/c${id}-b${seq}`, records: 1 + ((seq * 7 + id) % 23) };
    batches.push(batch);
    const body = Array.from({ length: batch.records }, () => ({ path: batch.path, userAgent: CHROME }));
    let res: Response;
    try {
      res = await fetch(`${server.url}/v1/analytics/${credentials.projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credentials.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
    } catch {
      batch.outcome = 'lost'; // sent (maybe in part, maybe committed) but no answer: either is allowed
      return;
    }
    if (res.status === 202) {
      batch.outcome = 'acked';
      onAck();
    } else {
      assert.equal(res.status, 503, `batch ${batch.path} answered ${res.status}`);
      batch.outcome = 'refused';
    }
  }
}

async function exportedPaths(server: ServerProcess, credentials: Credentials) {
  const counts = new Map<string, number>();
  let totals: { human: number; ai: number; total: number } | undefined;
  for (let offset = 0; ; offset += 250) {
    const res = await fetch(
      `${server.url}/v1/analytics/${credentials.projectId}/views?limit=250&offset=${offset}`,
      {
        headers: { authorization: `Bearer ${credentials.key}` },
      },
    );
    assert.equal(res.status, 200);
    const page = (await res.json()) as {
      totals: { human: number; ai: number; total: number };
      views: { path: string; human: number; ai: number; total: number }[];
      hasMore: boolean;
    };
    totals ??= page.totals;
    for (const view of page.views) {
      assert.ok(!counts.has(view.path), `${view.path} listed twice`);
      counts.set(view.path, view.human);
    }
    if (!page.hasMore) return { counts, totals: totals! };
  }
}

async function killWhileIngesting(env: NodeJS.ProcessEnv): Promise<void> {
  const first = await startServer(env);
  let credentials: Credentials | undefined;
  try {
    const printed = firstStartCredentials(first.stdout());
    assert.ok(printed, 'the first start printed a project and an admin key');
    credentials = { projectId: printed.projectId, key: printed.key };

    const batches: Batch[] = [];
    let acked = 0;
    let killed: Promise<unknown> | undefined;
    const clients = Array.from({ length: CLIENTS }, (_, id) =>
      client(first, credentials!, id, batches, () => {
        acked++;
        if (acked === ACKED_BEFORE_KILL) killed = first.stop('SIGKILL');
      }),
    );
    await Promise.all(clients);
    assert.ok(killed, 'the server was killed by the test, not by a failure');
    assert.equal((await first.exited).signal, 'SIGKILL');

    const restarted = await startServer(env);
    try {
      const { counts, totals } = await exportedPaths(restarted, credentials);
      const byPath = new Map(batches.map((b) => [b.path, b]));
      for (const [path, views] of counts) {
        const batch = byPath.get(path);
        assert.ok(batch, `${path} was counted but never sent`);
        assert.equal(
          views,
          batch.records,
          `${path}: all ${batch.records} records counted once, not ${views}`,
        );
        assert.notEqual(batch.outcome, 'refused', `${path} was refused with 503 yet counted`);
      }
      const ackedBatches = batches.filter((b) => b.outcome === 'acked');
      for (const batch of ackedBatches)
        assert.ok(counts.has(batch.path), `acknowledged ${batch.path} was lost`);
      const lost = batches.filter((b) => b.outcome === 'lost');
      const lostLanded = lost.filter((b) => counts.has(b.path));
      const sum = (list: Batch[]) => list.reduce((n, b) => n + b.records, 0);
      assert.equal(totals.human, sum(ackedBatches) + sum(lostLanded));
      assert.ok(ackedBatches.length >= ACKED_BEFORE_KILL);
      assert.equal(lost.length, CLIENTS, 'each client lost exactly its last answer');
    } finally {
      await restarted.stop('SIGTERM');
    }
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await first.stop('SIGKILL');
  }
}

describe('acknowledged page views survive kill -9', () => {
  test('embedded PGlite', { timeout: 180_000 }, async () => {
    const dataDir = tempDataDir();
    try {
      await killWhileIngesting(cliEnv({ DOCWRIGHT_DATA_DIR: dataDir }));
    } finally {
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });

  const unreachable = (async () => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
    try {
      await c.connect();
      return null;
    } catch (error) {
      return `PostgreSQL at ${TEST_DATABASE_URL} is unreachable (${(error as Error).message})`;
    } finally {
      await c.end().catch(() => {});
    }
  })();

  test('PostgreSQL', { timeout: 180_000 }, async (t) => {
    const problem = await unreachable;
    if (problem !== null) {
      if (process.env.CI === 'true') throw new Error(problem);
      t.skip(problem);
      return;
    }
    const database = await createPostgresDatabase();
    const dataDir = tempDataDir();
    try {
      await killWhileIngesting(
        cliEnv({
          DATABASE_URL: database.url,
          DOCWRIGHT_SECRET_KEY: randomBytes(32).toString('hex'),
          DOCWRIGHT_DATA_DIR: dataDir,
        }),
      );
    } finally {
      rmSync(dirname(dataDir), { recursive: true, force: true });
      await database.drop();
    }
  });
});

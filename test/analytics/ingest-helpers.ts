// Shared by the ingest tests: the real app with ingest settings of the test's choosing, a
// database whose commits a test can hold or make fail (everything else goes to the real engine),
// and readers for the export.
import assert from 'node:assert/strict';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import type { IngestRouteOptions } from '../../src/modules/analytics/ingest/routes.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer } from '../helpers/app.ts';

export async function ingestTestApp(db: Database, ingest: IngestRouteOptions = {}): Promise<App> {
  return buildApp({
    db,
    logger: createLogger('silent'),
    config: { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test', publicUrl: 'http://127.0.0.1:3000' },
    ingest,
  });
}

/**
 * A statement that commits on its own: a group commit without Idempotency-Keys stages its views
 * in one statement outside any transaction (group-commit.ts). Other standalone statements (key
 * lookups, reads) are never held or failed.
 */
const COMMITTING_STATEMENT = /^\s*WITH visitor_ids AS \(\s*INSERT INTO visitor_ids_staged/;

/**
 * The real database, with a hand on commits: each transaction, and each statement that commits
 * on its own (the group commit's staging statement, COMMITTING_STATEMENT). hold() makes the next
 * ones wait (before they begin, so the engine stays free for other queries) until released;
 * failNextCommit() lets the next one run its statements and then throw, so the engine really
 * rolls them back.
 */
export function controllableDatabase(real: Database) {
  let gate: Promise<void> | null = null;
  let openGate: (() => void) | null = null;
  let failures = 0;
  let atGate = 0;
  let passes = 0;
  /** Waits at the gate if one is up; true when this commit is to fail. */
  const beforeCommit = async (): Promise<boolean> => {
    if (gate !== null && passes > 0) passes--;
    else if (gate !== null) {
      atGate++;
      await gate;
      atGate--;
    }
    if (failures === 0) return false;
    failures--;
    return true;
  };
  const db: Database = {
    kind: real.kind,
    async query(sql, params) {
      if (!COMMITTING_STATEMENT.test(sql)) return real.query(sql, params);
      if (!(await beforeCommit())) return real.query(sql, params);
      // The statement really runs, then is rolled back: as if it failed at its commit.
      return real.transaction(async (tx) => {
        await tx.query(sql, params);
        throw new Error('injected failure at commit');
      });
    },
    exec: (sql) => real.exec(sql),
    listen: (channel, onNotify) => real.listen(channel, onNotify),
    close: () => real.close(),
    async transaction(fn) {
      if (await beforeCommit()) {
        return real.transaction(async (tx) => {
          await fn(tx);
          throw new Error('injected failure at commit');
        });
      }
      return real.transaction(fn);
    },
  };
  return {
    db,
    /** Transactions waiting at the gate. */
    waitingAtGate: () => atGate,
    /** Holds the transactions that begin from now on, but for the first `letThrough`. */
    hold(letThrough = 0): () => void {
      passes = letThrough;
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
      return () => this.releaseAll();
    },
    /** Lets every held transaction go (also in a test's finally, so closing never waits on them). */
    releaseAll() {
      gate = null;
      openGate?.();
      openGate = null;
    },
    failNextCommit() {
      failures++;
    },
  };
}

/** Waits (without a deadline of its own: the test runner's timeout applies) until check holds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 20_000) assert.fail(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export interface IngestAnswer {
  accepted: number;
  dropped: Record<string, number>;
  rejected: { index: number; code: string; message: string }[];
}

export interface PathViews {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface Report {
  totals: { human: number; ai: number; total: number };
  views: PathViews[];
  hasMore: boolean;
}

/** `headers` adds to the key's Authorization (an Idempotency-Key, say). */
export function postRecords(
  app: App,
  projectId: string,
  key: string,
  records: unknown[],
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: `/v1/analytics/${projectId}/events`,
    headers: { ...bearer(key), ...headers },
    payload: records as object[],
  });
}

export function postNdjson(
  app: App,
  projectId: string,
  key: string,
  text: string,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: `/v1/analytics/${projectId}/events`,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', ...headers },
    payload: text,
  });
}

export async function viewsReport(app: App, projectId: string, key: string, query = ''): Promise<Report> {
  const res = await app.inject({
    method: 'GET',
    url: `/v1/analytics/${projectId}/views${query}`,
    headers: bearer(key),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Every page of the export for a range, walked with the largest limit. */
export async function allViews(app: App, projectId: string, key: string, range = ''): Promise<Report> {
  const views: PathViews[] = [];
  let first: Report | undefined;
  for (let offset = 0; ; offset += 250) {
    const page = await viewsReport(app, projectId, key, `?limit=250&offset=${offset}${range}`);
    first ??= page;
    views.push(...page.views);
    if (!page.hasMore) return { totals: first.totals, views, hasMore: false };
  }
}

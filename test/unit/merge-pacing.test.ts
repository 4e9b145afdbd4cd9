// The staged-views merger's pacing (staged-merger.ts): the wait after a merge grows with the
// merge's duration, within delayMs and maxDelayMs, so merging takes a bounded share of the time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  DEFAULT_STAGED_MERGER,
  nextMergeDelay,
  StagedViewMerger,
} from '../../src/modules/analytics/store/staged-merger.ts';

const options = { ...DEFAULT_STAGED_MERGER, delayMs: 1000, paceFactor: 4, maxDelayMs: 10_000 };

test('a quick merge is followed by the usual wait', () => {
  assert.equal(nextMergeDelay(options, 3), 1000);
  assert.equal(nextMergeDelay(options, 250), 1000);
});

test('a slow merge is followed by paceFactor times its duration', () => {
  assert.equal(nextMergeDelay(options, 800), 3200);
  assert.equal(nextMergeDelay(options, 1200.2), 4801);
});

test('the wait is capped at maxDelayMs, but never below delayMs', () => {
  assert.equal(nextMergeDelay(options, 60_000), 10_000);
  assert.equal(nextMergeDelay({ ...options, delayMs: 600_000 }, 60_000), 600_000);
});

test('on PGlite, where merges run on the server thread, the wait is nine times the merge', () => {
  // Never started: the database is not used.
  const merger = (kind: Database['kind'], options = {}) =>
    new StagedViewMerger({ kind } as Database, options).options;
  assert.equal(nextMergeDelay(merger('pglite'), 800), 7200);
  assert.equal(nextMergeDelay(merger('postgres'), 800), 3200);
  // The caller's options still win.
  assert.equal(merger('pglite', { paceFactor: 4 }).paceFactor, 4);
});

test("PGlite, which has no autovacuum, vacuums ingest's tables every fourth merge; PostgreSQL never", () => {
  const merger = (kind: Database['kind'], options = {}) =>
    new StagedViewMerger({ kind } as Database, options).options;
  assert.equal(merger('pglite').vacuumEvery, 4);
  assert.equal(merger('postgres').vacuumEvery, 0);
  assert.equal(merger('pglite', { vacuumEvery: 0 }).vacuumEvery, 0);
});

// The staged-views merger's pacing (staged-merger.ts): the wait after a merge grows with the
// merge's duration, within delayMs and maxDelayMs, so merging takes a bounded share of the time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_STAGED_MERGER, nextMergeDelay } from '../../src/modules/analytics/store/staged-merger.ts';

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

// Unit tests of the one retry policy: pure logic, no network, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  backoffDelayMs,
  nextRetryDelayMs,
  type RetryPolicy,
  retrying,
} from '../../src/runtime/retry-policy.ts';

const doubling: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };

test('attempts counts tries in all: no wait is offered after the last one', () => {
  assert.notEqual(nextRetryDelayMs(doubling, 3), null);
  assert.equal(nextRetryDelayMs(doubling, 4), null);
  assert.equal(nextRetryDelayMs({ ...doubling, attempts: 1 }, 1), null, 'one try: no retry at all');
});

test('waits double from the base, capped, with equal jitter by default', () => {
  assert.equal(
    backoffDelayMs(doubling, 1, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(doubling, 1, () => 1),
    100,
  );
  assert.equal(
    backoffDelayMs(doubling, 3, () => 1),
    400,
  );
  assert.equal(
    backoffDelayMs(doubling, 9, () => 1),
    1000,
  );
});

test('a schedule gives the nominal waits, the jitter range applies, and no try follows its end', () => {
  const scheduled: RetryPolicy = {
    attempts: 3,
    baseDelayMs: 0,
    maxDelayMs: Number.POSITIVE_INFINITY,
    scheduleMs: [1000, 5000],
    jitter: { min: 0.8, max: 1.2 },
  };
  assert.equal(
    nextRetryDelayMs(scheduled, 1, null, () => 0),
    800,
  );
  assert.equal(
    nextRetryDelayMs(scheduled, 2, null, () => 0.5),
    5000,
  );
  assert.equal(nextRetryDelayMs(scheduled, 3), null);
  assert.equal(nextRetryDelayMs({ ...scheduled, attempts: 10 }, 3), null, 'the schedule ends the tries too');
});

test("the other side's Retry-After is the wait, within the cap", () => {
  assert.equal(
    nextRetryDelayMs(doubling, 1, 700, () => 0),
    700,
  );
  assert.equal(
    nextRetryDelayMs(doubling, 1, 0, () => 1),
    0,
  );
  assert.equal(nextRetryDelayMs(doubling, 1, 60_000), 1000);
});

test('retrying tries again only what is retryable, up to the attempts, then gives up its way', async () => {
  const fast: RetryPolicy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };
  let calls = 0;
  const waits: number[] = [];
  await assert.rejects(
    retrying(
      fast,
      () => {
        calls++;
        return Promise.reject(new Error('busy'));
      },
      {
        retryable: () => ({ retryAfterMs: null }),
        onRetry: ({ failedTries }) => void waits.push(failedTries),
        giveUp: (error, tries) => new Error(`${(error as Error).message} after ${tries}`),
      },
    ),
    { message: 'busy after 3' },
  );
  assert.equal(calls, 3);
  assert.deepEqual(waits, [1, 2]);

  calls = 0;
  await assert.rejects(
    retrying(
      fast,
      () => {
        calls++;
        return Promise.reject(new Error('refused'));
      },
      { retryable: () => null },
    ),
    { message: 'refused' },
  );
  assert.equal(calls, 1, 'a failure that is not retryable is thrown at once');

  calls = 0;
  const flaky = () => (++calls < 3 ? Promise.reject(new Error('blip')) : Promise.resolve('ok'));
  assert.equal(await retrying(fast, flaky, { retryable: () => ({ retryAfterMs: 0 }) }), 'ok');
});

test('an abort during a wait rejects with an AbortError, or calls again when asked to', async () => {
  const slow: RetryPolicy = { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 };
  for (const abortedWait of ['throw', 'call-again'] as const) {
    const controller = new AbortController();
    let calls = 0;
    const call = () => {
      calls++;
      if (calls === 1) setImmediate(() => controller.abort());
      return Promise.reject(new Error(`failure ${calls}`));
    };
    const hooks = { retryable: () => ({ retryAfterMs: null }), signal: controller.signal, abortedWait };
    if (abortedWait === 'throw') {
      await assert.rejects(retrying(slow, call, hooks), { name: 'AbortError' });
      assert.equal(calls, 1);
    } else {
      await assert.rejects(retrying(slow, call, hooks), { message: 'failure 2' });
      assert.equal(calls, 2, 'the call meets the aborted signal, and its failure is thrown');
    }
  }
});

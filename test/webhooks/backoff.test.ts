// Unit test of the webhook retry schedule: pure logic, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETRY_DELAYS_MS, nextRetryDelayMs } from '../../src/modules/webhooks/backoff.ts';

test('six attempts in about an hour, with jitter of at most 20%', () => {
  assert.equal(DEFAULT_RETRY_DELAYS_MS.length + 1, 6);
  const total = DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(total >= 55 * 60_000 && total <= 65 * 60_000, `${total / 60_000} min`);
  assert.equal(
    nextRetryDelayMs(1, DEFAULT_RETRY_DELAYS_MS, () => 0),
    24_000,
  );
  assert.equal(
    nextRetryDelayMs(1, DEFAULT_RETRY_DELAYS_MS, () => 1),
    36_000,
  );
  assert.equal(
    nextRetryDelayMs(5, DEFAULT_RETRY_DELAYS_MS, () => 0.5),
    2_400_000,
  );
  assert.equal(nextRetryDelayMs(6, DEFAULT_RETRY_DELAYS_MS), null, 'no attempt after the sixth');
});

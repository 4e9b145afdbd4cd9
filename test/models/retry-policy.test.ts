// Unit tests of the pure parts of retrying and of secret removal (no network involved).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryAfterMs } from '../../src/models/classify.ts';
import { redactSecrets } from '../../src/models/redact.ts';
import { backoffDelayMs, retryDelayMs } from '../../src/models/retry.ts';

const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };

test('backoff doubles, keeps half of each wait fixed, and is capped', () => {
  assert.equal(
    backoffDelayMs(1, policy, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(1, policy, () => 1),
    100,
  );
  assert.equal(
    backoffDelayMs(3, policy, () => 0),
    200,
  );
  assert.equal(
    backoffDelayMs(3, policy, () => 1),
    400,
  );
  assert.equal(
    backoffDelayMs(10, policy, () => 1),
    1000,
  );
  assert.equal(
    backoffDelayMs(10, policy, () => 0),
    500,
  );
});

test("the provider's retry-after wins over backoff, within the cap", () => {
  assert.equal(
    retryDelayMs(1, 250, policy, () => 0),
    250,
  );
  assert.equal(
    retryDelayMs(1, 5000, policy, () => 0),
    1000,
  );
  assert.equal(
    retryDelayMs(2, null, policy, () => 0),
    100,
  );
});

test('retry-after-ms, retry-after in seconds, and as an HTTP date', () => {
  assert.equal(retryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '9' }), 1500);
  assert.equal(retryAfterMs({ 'Retry-After': '2' }), 2000);
  assert.equal(retryAfterMs({ 'retry-after': '0.5' }), 500);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now), 3000);
  assert.equal(retryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }, now), 0);
  assert.equal(retryAfterMs({ 'retry-after': 'soon' }), null);
  assert.equal(retryAfterMs({}), null);
  assert.equal(retryAfterMs(undefined), null);
});

test('secrets and credential shapes are removed from provider messages', () => {
  const key = 'my-custom-key-value';
  const text = [
    `bad key ${key}`,
    'Authorization: Bearer abc.def-ghi',
    '{"x-api-key": "sk-ant-api03-AAAAAAAAAAAAAAAA"}',
    'Incorrect API key provided: sk-proj-abcdefghijklmnop.',
    'see https://host/v1?key=zzzz1234&model=x',
    'docwright key dw_AbCdEf1234567890',
  ].join('\n');
  const clean = redactSecrets(text, [key, null, undefined]);
  for (const secret of [
    key,
    'abc.def-ghi',
    'AAAAAAAAAAAAAAAA',
    'abcdefghijklmnop',
    'zzzz1234',
    'AbCdEf1234567890',
  ]) {
    assert.ok(!clean.includes(secret), `${secret} left in:\n${clean}`);
  }
  assert.match(clean, /bad key \[redacted\]/);
  assert.match(clean, /model=x/);
  assert.equal(redactSecrets('short key abc stays', ['abc']), 'short key abc stays');
});

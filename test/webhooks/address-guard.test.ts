// Unit tests of the webhook SSRF guard and the retry schedule: pure logic, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AddressRefusedError,
  guardedLookup,
  isRefusedAddress,
} from '../../src/modules/webhooks/address-guard.ts';
import { DEFAULT_RETRY_DELAYS_MS, nextRetryDelayMs } from '../../src/modules/webhooks/backoff.ts';

test('loopback, private, link-local, metadata, CGNAT, multicast and mapped forms are refused', () => {
  for (const address of [
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
  ]) {
    assert.equal(isRefusedAddress(address), true, address);
  }
});

test('public addresses pass', () => {
  for (const address of [
    '93.184.216.34',
    '1.1.1.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    assert.equal(isRefusedAddress(address), false, address);
  }
});

test('the lookup refuses a name that resolves to loopback, in both calling forms Node uses', async () => {
  for (const all of [false, true]) {
    const error = await new Promise<Error | null>((resolve) => {
      guardedLookup('localhost', { all } as never, (e) => resolve(e));
    });
    assert.ok(error instanceof AddressRefusedError, String(error));
    assert.match(error.message, /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback/);
  }
});

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

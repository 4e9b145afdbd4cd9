// The outbound-HTTP module: which addresses are refused, the guarded lookup, and one request's
// bounds (bytes, redirects, policy) against a real local server.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { guardedLookup } from '../../src/net/outbound-http/guarded-lookup.ts';
import {
  checkOutboundUrl,
  isSpecialPurposeAddress,
  type OutboundPolicy,
  OutboundRefusedError,
  outboundRequest,
} from '../../src/net/outbound-http/index.ts';

const STRICT: OutboundPolicy = { purpose: 'tests', requireHttps: false, allowPrivateAddresses: false };
const LOCAL: OutboundPolicy = { ...STRICT, allowPrivateAddresses: true };

test('every IANA special-purpose range, multicast and the IPv4-carrying IPv6 forms are refused', () => {
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
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.7',
    '192.88.99.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::127.0.0.1',
    'fd00::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b:1::1',
    '100::1',
    '100:0:0:1::1',
    '2001:db8::1',
    '2001:2::1',
    '2002:7f00:1::1',
    '2001::1',
    '3fff::1',
    '5f00::1',
    'not-an-address',
  ]) {
    assert.equal(isSpecialPurposeAddress(address), true, address);
  }
});

test('global unicast addresses pass, IPv4 ones included', () => {
  for (const address of [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    assert.equal(isSpecialPurposeAddress(address), false, address);
  }
});

test('the lookup refuses a name that resolves to loopback, in both calling forms Node uses', async () => {
  for (const all of [false, true]) {
    const error = await new Promise<Error | null>((resolve) => {
      guardedLookup({ ...STRICT, allowPrivateSetting: 'SOME_SETTING' })('localhost', { all } as never, (e) =>
        resolve(e),
      );
    });
    assert.ok(error instanceof OutboundRefusedError, String(error));
    assert.match(error.message, /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback/);
    assert.match(error.message, /unless SOME_SETTING=true$/);
  }
});

let origin = '';
const seen: string[] = [];
const server = createServer((request, response) => {
  seen.push(request.url ?? '');
  if (request.url === '/redirect') {
    response.writeHead(302, { location: '/final' }).end();
  } else if (request.url === '/big') {
    response.writeHead(200);
    response.write('x'.repeat(10_000));
    response.end('x'.repeat(10_000));
  } else {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  }
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a literal loopback address and a name for it are refused before anything is sent', async () => {
  const before = seen.length;
  const port = new URL(origin).port;
  for (const url of [`${origin}/x`, `http://localhost:${port}/x`, `http://[::ffff:127.0.0.1]:${port}/x`]) {
    await assert.rejects(
      outboundRequest(url, { timeoutMs: 2000, maxBytes: 100, policy: STRICT }),
      OutboundRefusedError,
      url,
    );
    await assert.rejects(checkOutboundUrl(url, STRICT), OutboundRefusedError, url);
  }
  assert.equal(seen.length, before);
});

test('https only when the policy says so', async () => {
  await assert.rejects(
    outboundRequest(`${origin}/x`, {
      timeoutMs: 2000,
      maxBytes: 100,
      policy: { ...LOCAL, requireHttps: true },
    }),
    (error: Error) => error instanceof OutboundRefusedError && /must use https/.test(error.message),
  );
  await assert.rejects(checkOutboundUrl('ftp://example.com/x', STRICT), OutboundRefusedError);
});

test('a redirect is returned, not followed; the body is cut at the byte cap', async () => {
  const redirect = await outboundRequest(`${origin}/redirect`, {
    timeoutMs: 2000,
    maxBytes: 100,
    policy: LOCAL,
  });
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.location, '/final');
  assert.ok(!seen.includes('/final'));
  const big = await outboundRequest(`${origin}/big`, { timeoutMs: 2000, maxBytes: 1000, policy: LOCAL });
  assert.equal(big.truncated, true);
  assert.equal(big.body.length, 1000);
  const small = await outboundRequest(`${origin}/ok`, { timeoutMs: 2000, maxBytes: 1000, policy: LOCAL });
  assert.deepEqual([small.status, small.body.toString(), small.truncated], [200, 'hello', false]);
});

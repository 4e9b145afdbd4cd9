// The hasher finds canonical IPv4 addresses by number (canonical-ipv4.ts), but a visitor id
// hashes the address text as sent: a number must stand for exactly one text, so every other
// spelling of an address (leading zeros, spaces, other separators, out of range) must be read as
// not canonical and found by its text, with its own id.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { canonicalIpv4 } from '../../src/modules/analytics/store/canonical-ipv4.ts';
import { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';

const SALT = new Uint8Array(32).map((_, i) => i * 5 + 1);

function expectedId(projectId: string, visitorClass: string, address: string, agent: string): number {
  const digest = createHash('sha256')
    .update(`${Buffer.from(SALT).toString('hex')}\0${projectId}\0${visitorClass}\0${address}\0${agent}`)
    .digest();
  return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
}

function dotted(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

test('canonical IPv4: the dotted form of every number reads back as its bits, a small integer', () => {
  // Signed: the upper half of the addresses reads as negative int32s, never as a heap number.
  for (const value of [0, 1, 255, 256, 0x7fffffff, 0x80000000, 0xc0000201, 0xfffffffe])
    assert.equal(canonicalIpv4(dotted(value)), value | 0, dotted(value));
  assert.equal(canonicalIpv4('192.0.2.1'), -1073741311);
  for (let n = 0; n < 20_000; n++) {
    const value = Math.floor(Math.random() * (2 ** 32 - 1));
    const read = canonicalIpv4(dotted(value));
    assert.equal(read, value | 0);
    assert.ok(read >= -(2 ** 31) && read < 2 ** 31);
  }
  // Its bits are -1, the answer for "not canonical": found by its text instead.
  assert.equal(canonicalIpv4('255.255.255.255'), -1);
});

test('canonical IPv4: any other text is not canonical, and a number stands for one text only', () => {
  for (const text of [
    '',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.00',
    '256.1.1.1',
    '1.1.1.256',
    '1.1.1.1000',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1..3.4',
    '.1.2.3',
    '1.2.3.',
    '1,2.3.4',
    '１.2.3.4',
    '2001:db8::1',
    '::ffff:1.2.3.4',
    '0x1.2.3.4',
    '+1.2.3.4',
  ])
    assert.equal(canonicalIpv4(text), -1, JSON.stringify(text));
  // Random texts over the characters of addresses: whatever reads as a number prints back to itself.
  const alphabet = '0123456789.';
  for (let n = 0; n < 200_000; n++) {
    let text = '';
    const length = 1 + Math.floor(Math.random() * 16);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(Math.random() * alphabet.length)];
    const value = canonicalIpv4(text);
    if (value !== -1) assert.equal(dotted(value), text);
  }
});

test('hasher: spellings of one address are different senders, each with the construction id', () => {
  const hasher = new VisitorHasher(SALT);
  const agent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0';
  const sender = {};
  for (let round = 0; round < 2; round++) {
    for (const address of [
      '10.0.0.1',
      '010.0.0.1',
      '10.0.0.01',
      '10.0.0.1 ',
      '::ffff:10.0.0.1',
      '255.255.255.255',
    ]) {
      for (const visitorClass of ['human', 'ai'] as const) {
        const expected = expectedId('prj_v', visitorClass, address, visitorClass === 'ai' ? '' : agent);
        assert.equal(hasher.id('prj_v', visitorClass, `${address} `.slice(0, -1), agent, sender), expected);
        assert.equal(hasher.id('prj_v', visitorClass, address, `${agent} `.trimEnd()), expected);
      }
    }
  }
});

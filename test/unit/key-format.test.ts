import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey, hashApiKey, LOOKUP_LENGTH, parseApiKey } from '../../src/modules/keys/key-format.ts';

test('keys are dw_ + 32 base62 + a 6-character checksum, and each is different', () => {
  const keys = Array.from({ length: 200 }, () => generateApiKey());
  for (const k of keys) {
    assert.match(k.key, /^dw_[0-9A-Za-z]{38}$/);
    assert.deepEqual(parseApiKey(k.key), { lookup: k.lookup });
    assert.equal(k.lookup.length, LOOKUP_LENGTH);
    assert.deepEqual(k.secretHash, hashApiKey(k.key));
  }
  assert.equal(new Set(keys.map((k) => k.key)).size, keys.length);
});

test('the checksum catches any single changed character, and noise is refused', () => {
  const { key } = generateApiKey();
  for (let i = 3; i < key.length; i++) {
    const c = key[i] === 'a' ? 'b' : 'a';
    const typo = key.slice(0, i) + c + key.slice(i + 1);
    assert.equal(parseApiKey(typo), null, `position ${i}`);
  }
  for (const noise of [
    '',
    'dw_',
    `dw_${'a'.repeat(38)}`,
    `xx_${key.slice(3)}`,
    `${key}x`,
    key.toUpperCase(),
  ]) {
    assert.equal(parseApiKey(noise), null, noise);
  }
});

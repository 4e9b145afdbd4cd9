import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openSecret, SecretUnreadableError, sealSecret } from '../../src/util/secret-box.ts';

const key = randomBytes(32);

test('a sealed secret opens with the same key and context, and does not contain the plaintext', () => {
  const sealed = sealSecret(key, 'prj_a/token', 'ghp_supersecret');
  assert.ok(!sealed.includes('ghp_supersecret'));
  assert.equal(openSecret(key, 'prj_a/token', sealed), 'ghp_supersecret');
  assert.notEqual(sealSecret(key, 'prj_a/token', 'ghp_supersecret'), sealed, 'a fresh IV each time');
});

test('another key, another context or a changed byte cannot open it', () => {
  const sealed = sealSecret(key, 'prj_a/token', 'ghp_supersecret');
  assert.throws(() => openSecret(randomBytes(32), 'prj_a/token', sealed), SecretUnreadableError);
  assert.throws(() => openSecret(key, 'prj_b/token', sealed), SecretUnreadableError);
  const [v, iv, body] = sealed.split('.');
  const flipped = Buffer.from(body!, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  assert.throws(
    () => openSecret(key, 'prj_a/token', `${v}.${iv}.${flipped.toString('base64url')}`),
    SecretUnreadableError,
  );
  assert.throws(() => openSecret(key, 'prj_a/token', 'garbage'), SecretUnreadableError);
});

test('the error message names the context but never the secret', () => {
  try {
    openSecret(randomBytes(32), 'prj_a/token', sealSecret(key, 'prj_a/token', 'ghp_supersecret'));
    assert.fail('should throw');
  } catch (error) {
    assert.match((error as Error).message, /prj_a\/token/);
    assert.ok(!(error as Error).message.includes('ghp_supersecret'));
  }
});

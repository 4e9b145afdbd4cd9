// Shared checks for the code-host tests.
import assert from 'node:assert/strict';
import { CodeHostError, type CodeHostFailureCode } from '../../src/code-hosts/contract.ts';

/** Awaits a failure, checks it is a CodeHostError with `code`, and that no secret is in its message. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: CodeHostFailureCode,
  secrets: string[],
): Promise<CodeHostError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof CodeHostError, `expected a CodeHostError, got ${String(caught)}`);
  assert.equal(caught.code, code, `code of: ${caught.message}`);
  assertNoSecrets(caught.message, secrets);
  assertNoSecrets(JSON.stringify(caught), secrets);
  assert.equal((caught as { cause?: unknown }).cause, undefined, 'no cause: library errors hold the request');
  return caught;
}

export function assertNoSecrets(text: string, secrets: string[]): void {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `a secret appears in: ${text.slice(0, 300)}`);
    const b64 = Buffer.from(secret).toString('base64');
    assert.ok(!text.includes(b64), 'a secret appears base64-encoded');
  }
}

/** Decodes "Authorization: Basic xxx" into [user, password]. */
export function decodeBasicHeader(header: string): [string, string] {
  const match = /^Authorization: Basic ([A-Za-z0-9+/=]+)$/.exec(header);
  assert.ok(match, `not a Basic Authorization header line: ${header.replace(/Basic .*/, 'Basic …')}`);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

// Ed25519 keys from a key directory (a JWK Set, RFC 7517) and their RFC 7638 / RFC 8037
// thumbprints. Web Bot Auth's `keyid` is the thumbprint, so the verifier computes it from the key
// material itself rather than trusting the directory's `kid` label.

import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

export interface DirectoryKey {
  keyid: string;
  key: KeyObject;
  /** Seconds since the epoch; the key is not to be used outside [nbf, exp] when given. */
  nbf?: number;
  exp?: number;
}

export function ed25519Thumbprint(x: string): string {
  // Members in lexicographic order, no whitespace (RFC 7638 section 3.2).
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Reads the Ed25519 keys of a JWK Set; other key types are skipped, broken keys too. */
export function ed25519KeysOf(document: unknown, maxKeys: number): DirectoryKey[] {
  if (typeof document !== 'object' || document === null)
    throw new Error('the directory is not a JSON object');
  const rawKeys = (document as { keys?: unknown }).keys;
  // An early draft showed a single key object instead of an array; accept both.
  const list = Array.isArray(rawKeys) ? rawKeys : rawKeys && typeof rawKeys === 'object' ? [rawKeys] : null;
  if (list === null) throw new Error('the directory has no "keys"');
  if (list.length > maxKeys) throw new Error(`the directory lists ${list.length} keys, more than ${maxKeys}`);
  const keys: DirectoryKey[] = [];
  for (const jwk of list) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    const { kty, crv, x, nbf, exp } = jwk as Record<string, unknown>;
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || !BASE64URL.test(x)) continue;
    if (Buffer.from(x, 'base64url').length !== 32) continue;
    let key: KeyObject;
    try {
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    } catch {
      continue;
    }
    keys.push({
      keyid: ed25519Thumbprint(x),
      key,
      ...(typeof nbf === 'number' ? { nbf } : {}),
      ...(typeof exp === 'number' ? { exp } : {}),
    });
  }
  return keys;
}

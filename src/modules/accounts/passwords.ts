// Password hashing with argon2id at OWASP's recommended cost (19 MiB of memory, 2 passes, 1 lane),
// through the argon2 package: its native code ships prebuilt inside the npm package, runs on
// libuv's thread pool (the event loop never waits on a hash) and needs no download or compiler.
// Hashes are PHC strings with their parameters inside; older hashes (scrypt, or argon2id at a
// lower cost) still verify and are replaced by a current one at the next sign-in (needsRehash).
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import argon2 from 'argon2';

/** OWASP Password Storage Cheat Sheet: argon2id, m = 19456 KiB, t = 2, p = 1. */
export const ARGON2_PARAMS = {
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase; bounded so a huge body cannot make hashing expensive. */
export const PASSWORD_MAX_LENGTH = 200;

/** What sign-in needs of password hashing; tests pass their own to count or hold the checks. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** True when the stored hash is of another kind or a lower cost than hash() makes now. */
  needsRehash(stored: string): boolean;
}

/** $argon2id$v=19$m=19456,t=2,p=1$salt$hash */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password.normalize('NFC'), ARGON2_PARAMS);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) {
    try {
      return await argon2.verify(stored, password.normalize('NFC'));
    } catch {
      return false; // a malformed stored hash matches nothing
    }
  }
  if (stored.startsWith('scrypt$')) return verifyScrypt(password, stored);
  return false;
}

export function needsRehash(stored: string): boolean {
  if (!stored.startsWith('$argon2id$')) return true;
  try {
    return argon2.needsRehash(stored, ARGON2_PARAMS);
  } catch {
    return true;
  }
}

export const passwordHasher: PasswordHasher = { hash: hashPassword, verify: verifyPassword, needsRehash };

/**
 * Hashes made before argon2id: scrypt$N$r$p$salt$hash (salt and hash in base64url), with the
 * parameters read back from the string. Only verified; a sign-in replaces them.
 */
function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6) return Promise.resolve(false);
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounded so a tampered row cannot make one check take minutes or gigabytes.
  const sane = [N, r, p].every((n) => Number.isInteger(n) && n > 0) && N <= 2 ** 17 && r <= 8 && p <= 4;
  if (!sane) return Promise.resolve(false);
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve) => {
    scrypt(password.normalize('NFC'), salt, expected.length || 32, options, (error, key) =>
      resolve(!error && key.length === expected.length && timingSafeEqual(key, expected)),
    );
  });
}

/**
 * A hash of no one's password, made once: sign-in checks an unknown email against it, so the
 * answer takes as long as for a known one and timing does not tell which emails have accounts.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

// Admin API keys: "dw_" + 32 random base62 characters + a 6-character base62 CRC32 of those 32.
// The checksum lets a secret scanner (or our own auth) tell a real key from noise or a typo
// without a database. The key's row is found by the SHA-256 of the whole key; the first
// LOOKUP_LENGTH random characters are kept only to show which key is which.
import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from '../../util/random.ts';

export const KEY_PREFIX = 'dw_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so every CRC32 fits
export const LOOKUP_LENGTH = 8;
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function checksum(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH);
}

export interface GeneratedKey {
  key: string;
  lookup: string;
  secretHash: Buffer;
}

export function generateApiKey(): GeneratedKey {
  const random = randomBase62(RANDOM_LENGTH);
  const key = `${KEY_PREFIX}${random}${checksum(random)}`;
  return { key, lookup: random.slice(0, LOOKUP_LENGTH), secretHash: hashApiKey(key) };
}

/** The lookup part of a well-formed key with a valid checksum, else null. */
export function parseApiKey(candidate: string): { lookup: string } | null {
  const match = KEY_PATTERN.exec(candidate);
  if (!match) return null;
  const [, random, sum] = match;
  if (checksum(random!) !== sum) return null;
  return { lookup: random!.slice(0, LOOKUP_LENGTH) };
}

export function hashApiKey(key: string): Buffer {
  // The one-shot hash costs a third of a Hash object's: it runs on every API request (key-cache.ts).
  return hash('sha256', key, 'buffer');
}

/** What may be shown of a key after creation: its prefix and lookup characters. */
export function displayPrefix(lookup: string): string {
  return `${KEY_PREFIX}${lookup}`;
}

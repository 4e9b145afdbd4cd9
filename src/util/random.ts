// Random identifiers and secrets in base62 (URL-safe, double-click selects the whole thing).
import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** length characters drawn uniformly from BASE62 (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: values above would favour some characters
      if (out.length === length) break;
    }
  }
  return out;
}

/** A prefixed identifier such as prj_3xK9... (16 random characters: ~95 bits). */
export function newId(prefix: 'prj' | 'key' | 'job'): string {
  return `${prefix}_${randomBase62(16)}`;
}

/** n as base62, left-padded with '0' to width. */
export function toBase62(n: number, width: number): string {
  let out = '';
  let rest = n;
  do {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

// A small fixed-size table that finds a string key without hashing all of it, placed in front of
// a Map-based cache. Strings fresh from JSON.parse carry no hash yet, and a Map lookup computes
// one over every character: for a 120-character user agent that cost more than the rest of the
// record's classification. Here a hit costs a hash of a sample of the characters (all of the last
// sixteen, where versions and page names differ, then ever sparser) and an `===` with at most
// four candidates. The table is set-associative, four entries per set, newest first: its memory
// is fixed, and keys that share a sample only push each other out, to the cache behind it.

const WAYS = 4;
// The last characters are all read, then every second, third, ... before them.
const DENSE_TAIL = 16;

function sampledHash(text: string): number {
  const end = text.length;
  let hash = end;
  let step = 1;
  for (let i = end - 1; i >= 0; i -= step) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
    if (end - i >= DENSE_TAIL) step++;
  }
  return hash ^ (hash >>> 16);
}

export class StringFrontTable<V> {
  readonly #setMask: number;
  /**
   * Per set, its four keys, then their four values: a probe and its hit read one stretch of
   * memory (32 bytes) instead of a line in each of two arrays. A lookup that misses the CPU's
   * caches costs more than the rest of it, and the page table of a busy site is large.
   */
  readonly #entries: (string | V | undefined)[];

  /** `sets` (a power of two) sets of four entries. */
  constructor(sets: number) {
    if (!Number.isInteger(Math.log2(sets))) throw new RangeError(`sets must be a power of two, got ${sets}`);
    this.#setMask = sets - 1;
    this.#entries = new Array(sets * WAYS * 2).fill(undefined);
  }

  get(key: string): V | undefined {
    const entries = this.#entries;
    const first = (sampledHash(key) & this.#setMask) * (WAYS * 2);
    for (let slot = first; slot < first + WAYS; slot++) {
      const candidate = entries[slot];
      if (candidate === key) return entries[slot + WAYS] as V;
      if (candidate === undefined) return undefined; // a set fills from its start
    }
    return undefined;
  }

  /** Keeps the key itself: callers pass strings that hold nothing more than the key. */
  set(key: string, value: V): void {
    const entries = this.#entries;
    const first = (sampledHash(key) & this.#setMask) * (WAYS * 2);
    // Newest first: the oldest of the set falls off its end.
    for (let slot = first + WAYS - 1; slot > first; slot--) {
      entries[slot] = entries[slot - 1];
      entries[slot + WAYS] = entries[slot + WAYS - 1];
    }
    entries[first] = key;
    entries[first + WAYS] = value;
  }
}

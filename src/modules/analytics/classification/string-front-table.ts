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
  readonly #keys: (string | undefined)[];
  readonly #values: (V | undefined)[];

  /** `sets` (a power of two) sets of four entries. */
  constructor(sets: number) {
    if (!Number.isInteger(Math.log2(sets))) throw new RangeError(`sets must be a power of two, got ${sets}`);
    this.#setMask = sets - 1;
    this.#keys = new Array(sets * WAYS).fill(undefined);
    this.#values = new Array(sets * WAYS).fill(undefined);
  }

  get(key: string): V | undefined {
    const first = (sampledHash(key) & this.#setMask) * WAYS;
    for (let slot = first; slot < first + WAYS; slot++) {
      const candidate = this.#keys[slot];
      if (candidate === key) return this.#values[slot];
      if (candidate === undefined) return undefined; // a set fills from its start
    }
    return undefined;
  }

  /** Keeps the key itself: callers pass strings that hold nothing more than the key. */
  set(key: string, value: V): void {
    const first = (sampledHash(key) & this.#setMask) * WAYS;
    // Newest first: the oldest of the set falls off its end.
    for (let slot = first + WAYS - 1; slot > first; slot--) {
      this.#keys[slot] = this.#keys[slot - 1];
      this.#values[slot] = this.#values[slot - 1];
    }
    this.#keys[first] = key;
    this.#values[first] = value;
  }
}

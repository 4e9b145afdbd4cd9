// A bounded least-recently-used cache on a Map (which keeps insertion order): a hit moves the
// entry to the end, an insert past the bound evicts the oldest. Bounded because the keys
// (user-agent strings) come from clients and are unbounded in number.

export class LruCache<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`LRU cache size must be a positive integer, got ${maxEntries}`);
    }
    this.#max = maxEntries;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    if (this.#map.has(key)) this.#map.delete(key);
    else if (this.#map.size >= this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
    this.#map.set(key, value);
  }

  clear(): void {
    this.#map.clear();
  }
}

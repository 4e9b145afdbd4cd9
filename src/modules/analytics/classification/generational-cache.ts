// A bounded cache for the ingest fast path, where a hit must cost one Map lookup. An LRU
// (lru-cache.ts) pays a delete and a re-insert on every hit to keep its order; here entries live
// in two generations instead: hits in the current one cost nothing more, a hit in the previous one
// moves the entry forward, and when the current generation is full it becomes the previous one
// and the old previous one is dropped whole. Entries used at least once per generation stay;
// at most twice `generationSize` entries are held.

export class GenerationalCache<K, V> {
  readonly #generationSize: number;
  #current = new Map<K, V>();
  #previous = new Map<K, V>();

  constructor(generationSize: number) {
    if (!Number.isInteger(generationSize) || generationSize < 1) {
      throw new RangeError(`cache generation size must be a positive integer, got ${generationSize}`);
    }
    this.#generationSize = generationSize;
  }

  /** Entries held, across both generations. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  get(key: K): V | undefined {
    const value = this.#current.get(key);
    if (value !== undefined) return value;
    const old = this.#previous.get(key);
    if (old !== undefined) {
      this.#previous.delete(key);
      this.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.#current.size >= this.#generationSize) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, value);
  }
}

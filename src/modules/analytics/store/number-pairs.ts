// Pairs of numbers in one open-addressing table of doubles (linear probing, doubled while more
// than half full): no string to hash, no Map, no object per entry. Each slot holds its pair side
// by side, so a probe reads one cache line. What a pair means, and its hash, are the user's
// (address-ids.ts, numbered-visits.ts): every probe is handed the pair's hash, so the one class
// serves both without calling a function of theirs per lookup, its loads seeing one shape only.

/** Mixes a pair into 32 bits (the table masks them); the first number is never 0. */
export type PairHash = (first: number, second: number) => number;

export class NumberPairs {
  /** Slot i: the first number at 2i (0: empty), the second at 2i + 1. */
  #slots: Float64Array;
  #mask: number;
  #size = 0;
  /** Hashes stored pairs again when the table grows: never called by a probe. */
  readonly #hashOf: PairHash;

  /** `firstSlots` a power of two. */
  constructor(firstSlots: number, hashOf: PairHash) {
    this.#slots = new Float64Array(firstSlots * 2);
    this.#mask = firstSlots - 1;
    this.#hashOf = hashOf;
  }

  /** Pairs stored. */
  get size(): number {
    return this.#size;
  }

  /** The second number of the pair whose first is `first` (`hash`: the pair's); -1 when absent. */
  secondOf(first: number, hash: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slots[slot * 2]!;
      if (at === first) return slots[slot * 2 + 1]!;
      if (at === 0) return -1;
    }
  }

  /** True when the pair is stored (`hash`: its hash). */
  has(first: number, second: number, hash: number): boolean {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slots[slot * 2]!;
      if (at === first && slots[slot * 2 + 1] === second) return true;
      if (at === 0) return false;
    }
  }

  /** Stores a pair that has() or secondOf() did not find (`hash`: its hash). */
  add(first: number, second: number, hash: number): void {
    this.#put(first, second, hash);
    if (++this.#size * 2 > this.#slots.length / 2) this.#grow();
  }

  #put(first: number, second: number, hash: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = hash & mask;
    while (slots[slot * 2] !== 0) slot = (slot + 1) & mask;
    slots[slot * 2] = first;
    slots[slot * 2 + 1] = second;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2);
    this.#mask = old.length - 1;
    for (let at = 0; at < old.length; at += 2) {
      const first = old[at]!;
      if (first === 0) continue;
      const second = old[at + 1]!;
      this.#put(first, second, this.#hashOf(first, second));
    }
  }
}

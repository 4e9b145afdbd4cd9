// Visitor ids found by (sender number, IPv4 address number), in one open-addressing table of
// doubles: no string to hash, no Map, no object per entry. Each slot holds its key (the sender
// number plus one times 2^32, plus the address: exact in a double, 0 for an empty slot) and its
// id side by side, so a lookup reads one cache line; the hasher's memo (visitor-ids.ts) keeps its
// canonical IPv4 senders here.

/** The table's first size in slots (it doubles while more than half full). */
const FIRST_SLOTS = 1024;
const TWO_TO_32 = 2 ** 32;

export class AddressIds {
  /** Slot i: key at 2i, id at 2i + 1. */
  #slots = new Float64Array(FIRST_SLOTS * 2);
  #mask = FIRST_SLOTS - 1;
  #size = 0;

  /** The id of (sender, address): sender a small integer, address a uint32; -1 when absent. */
  get(sender: number, address: number): number {
    const key = (sender + 1) * TWO_TO_32 + address;
    const slots = this.#slots;
    const mask = this.#mask;
    for (let slot = slotOf(sender, address, mask); ; slot = (slot + 1) & mask) {
      const at = slots[slot * 2]!;
      if (at === key) return slots[slot * 2 + 1]!;
      if (at === 0) return -1;
    }
  }

  /** Remembers the id of (sender, address), which get() did not find. */
  set(sender: number, address: number, id: number): void {
    this.#put((sender + 1) * TWO_TO_32 + address, slotOf(sender, address, this.#mask), id);
    if (++this.#size * 2 > this.#slots.length / 2) this.#grow();
  }

  #put(key: number, first: number, id: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = first;
    while (slots[slot * 2] !== 0) slot = (slot + 1) & mask;
    slots[slot * 2] = key;
    slots[slot * 2 + 1] = id;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2);
    this.#mask = old.length - 1;
    for (let at = 0; at < old.length; at += 2) {
      const key = old[at]!;
      if (key === 0) continue;
      const address = key % TWO_TO_32;
      const sender = (key - address) / TWO_TO_32 - 1;
      this.#put(key, slotOf(sender, address, this.#mask), old[at + 1]!);
    }
  }
}

/** Addresses come in runs (one network's readers): both numbers are mixed, then folded. */
function slotOf(sender: number, address: number, mask: number): number {
  const mixed = Math.imul(address ^ Math.imul(sender, 0x9e3779b1), 0x85ebca6b);
  return (mixed ^ (mixed >>> 15)) & mask;
}

// The writer's staged-id check by numbers only (visitor-memo.ts): (key number, sender number,
// address number) triples, each a visitor the hasher finds by number (a canonical IPv4 address
// and its sender: visitor-ids.ts) whose id was committed for that (project, hour, class, path).
// A view found here needs neither its id nor the (key, id) table: one probe instead of two. One
// open-addressing table of doubles, each slot's key and visitor side by side (one cache line).

/** The table's first size in slots (it doubles while more than half full). */
const FIRST_SLOTS = 4096;
const TWO_TO_32 = 2 ** 32;

export class NumberedVisits {
  /** Slot i: the key number plus one at 2i (0: empty), sender × 2^32 + address at 2i + 1. */
  #slots = new Float64Array(FIRST_SLOTS * 2);
  #mask = FIRST_SLOTS - 1;
  size = 0;

  has(key: number, sender: number, address: number): boolean {
    const stored = key + 1;
    const visitor = sender * TWO_TO_32 + address;
    const slots = this.#slots;
    const mask = this.#mask;
    for (let slot = slotOf(key, sender, address, mask); ; slot = (slot + 1) & mask) {
      const at = slots[slot * 2]!;
      if (at === stored && slots[slot * 2 + 1] === visitor) return true;
      if (at === 0) return false;
    }
  }

  /** Adds the triple, which has() did not find. */
  add(key: number, sender: number, address: number): void {
    this.#put(key + 1, sender * TWO_TO_32 + address, slotOf(key, sender, address, this.#mask));
    if (++this.size * 2 > this.#slots.length / 2) this.#grow();
  }

  #put(stored: number, visitor: number, first: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = first;
    while (slots[slot * 2] !== 0) slot = (slot + 1) & mask;
    slots[slot * 2] = stored;
    slots[slot * 2 + 1] = visitor;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2);
    this.#mask = old.length - 1;
    for (let at = 0; at < old.length; at += 2) {
      const stored = old[at]!;
      if (stored === 0) continue;
      const visitor = old[at + 1]!;
      const address = visitor % TWO_TO_32;
      const sender = (visitor - address) / TWO_TO_32;
      this.#put(stored, visitor, slotOf(stored - 1, sender, address, this.#mask));
    }
  }
}

/** The three numbers mixed: keys, senders and addresses each come in runs. */
function slotOf(key: number, sender: number, address: number, mask: number): number {
  let mixed = Math.imul(address ^ Math.imul(sender, 0x9e3779b1), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13) ^ Math.imul(key, 0xc2b2ae35), 0x27d4eb2f);
  return (mixed ^ (mixed >>> 15)) & mask;
}

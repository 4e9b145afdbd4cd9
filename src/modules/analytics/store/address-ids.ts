// Visitor ids found by (sender number, IPv4 address number), in a table of number pairs
// (number-pairs.ts): the key (the sender number plus one times 2^32, plus the address: exact in a
// double, never 0) and its id. The hasher's memo (visitor-ids.ts) keeps its canonical IPv4
// senders here.
import { NumberPairs } from './number-pairs.ts';

/** The table's first size in slots (it doubles while more than half full). */
const FIRST_SLOTS = 1024;
const TWO_TO_32 = 2 ** 32;

export class AddressIds {
  readonly #pairs = new NumberPairs(FIRST_SLOTS, hashOfKey);

  /**
   * The id of (sender, address): sender a small integer, address an int32 (canonical-ipv4.ts,
   * read here as unsigned); -1 when absent.
   */
  get(sender: number, address: number): number {
    return this.#pairs.secondOf((sender + 1) * TWO_TO_32 + (address >>> 0), hashOf(sender, address));
  }

  /** Remembers the id of (sender, address), which get() did not find. */
  set(sender: number, address: number, id: number): void {
    this.#pairs.add((sender + 1) * TWO_TO_32 + (address >>> 0), id, hashOf(sender, address));
  }
}

/** Addresses come in runs (one network's readers): both numbers are mixed, then folded. */
function hashOf(sender: number, address: number): number {
  const mixed = Math.imul(address ^ Math.imul(sender, 0x9e3779b1), 0x85ebca6b);
  return mixed ^ (mixed >>> 15);
}

function hashOfKey(key: number): number {
  const address = key % TWO_TO_32;
  return hashOf((key - address) / TWO_TO_32 - 1, address);
}

// The writer's staged-id check by numbers only (visitor-memo.ts): (key number, sender number,
// address number) triples, each a visitor the hasher finds by number (a canonical IPv4 address
// and its sender: visitor-ids.ts) whose id was committed for that (project, hour, class, path).
// A view found here needs neither its id nor the (key, id) table: one probe instead of two. The
// triples are pairs of a table of number pairs (number-pairs.ts): the key number plus one (never
// 0), and sender × 2^32 + address.
import { NumberPairs } from './number-pairs.ts';

/** The table's first size in slots (it doubles while more than half full). */
const FIRST_SLOTS = 4096;
const TWO_TO_32 = 2 ** 32;

export class NumberedVisits {
  readonly #pairs = new NumberPairs(FIRST_SLOTS, hashOfPair);

  get size(): number {
    return this.#pairs.size;
  }

  /** `address`: an int32 (canonical-ipv4.ts) or a uint32 of the same bits, read as unsigned. */
  has(key: number, sender: number, address: number): boolean {
    return this.#pairs.has(key + 1, sender * TWO_TO_32 + (address >>> 0), hashOf(key, sender, address));
  }

  /** Adds the triple, which has() did not find. */
  add(key: number, sender: number, address: number): void {
    this.#pairs.add(key + 1, sender * TWO_TO_32 + (address >>> 0), hashOf(key, sender, address));
  }
}

/** The three numbers mixed: keys, senders and addresses each come in runs. */
function hashOf(key: number, sender: number, address: number): number {
  let mixed = Math.imul(address ^ Math.imul(sender, 0x9e3779b1), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13) ^ Math.imul(key, 0xc2b2ae35), 0x27d4eb2f);
  return mixed ^ (mixed >>> 15);
}

function hashOfPair(stored: number, visitor: number): number {
  const address = visitor % TWO_TO_32;
  return hashOf(stored - 1, (visitor - address) / TWO_TO_32, address);
}

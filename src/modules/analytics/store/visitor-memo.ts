// The visitor ids this process has committed to staging, per (project, hour, class, path). A
// sketch counts each id once, and an id once committed stays stored (staged until a fold moves it,
// in one transaction, into the sketches), so a later group commit need not stage it again: under
// load most views are of readers already seen on that page that hour, and leaving their ids out
// spares encoding, sending, storing and folding them. Only ids of committed groups are remembered
// (a failed commit staged nothing); at most MEMO_LIMIT ids, then the memo starts empty again,
// which only means staging some ids twice (counted once all the same).
//
// Ingest asks about every view, so the lookup is kept cheap: each (project, hour, class, path) has
// a small key number, and the (key, id) pairs live in one open-addressing table of typed arrays
// (ids are 53-bit integers, exact in a Float64Array). A Set of ids per key cost about twice as
// much per lookup (every id a heap number, three dependent loads per probe; bench/ingest-cpu.ts).
import { NumberedVisits } from './numbered-visits.ts';
import { ProjectHours } from './project-hours.ts';
import { type VisitorClass, VisitorSets } from './visitor-sets.ts';

/** Ids remembered before the memo is emptied: 12 MB of table at most. */
const MEMO_LIMIT = 500_000;
/** The table's first size in slots (it doubles while more than half full). */
const FIRST_SLOTS = 4096;

/** (key, id) pairs: keys are stored plus one, so 0 marks an empty slot. */
class PairTable {
  #keys = new Int32Array(FIRST_SLOTS);
  #ids = new Float64Array(FIRST_SLOTS);
  #mask = FIRST_SLOTS - 1;
  #size = 0;

  has(key: number, id: number): boolean {
    const stored = key + 1;
    const keys = this.#keys;
    const mask = this.#mask;
    for (let slot = slotOf(key, id, mask); ; slot = (slot + 1) & mask) {
      const at = keys[slot]!;
      if (at === 0) return false;
      if (at === stored && this.#ids[slot] === id) return true;
    }
  }

  /** Adds the pair; false when it was there already. */
  add(key: number, id: number): boolean {
    const stored = key + 1;
    const mask = this.#mask;
    let slot = slotOf(key, id, mask);
    for (; ; slot = (slot + 1) & mask) {
      const at = this.#keys[slot]!;
      if (at === 0) break;
      if (at === stored && this.#ids[slot] === id) return false;
    }
    this.#keys[slot] = stored;
    this.#ids[slot] = id;
    if (++this.#size * 2 > this.#keys.length) this.#grow();
    return true;
  }

  #grow(): void {
    const keys = this.#keys;
    const ids = this.#ids;
    this.#keys = new Int32Array(keys.length * 2);
    this.#ids = new Float64Array(keys.length * 2);
    this.#mask = keys.length * 2 - 1;
    for (let old = 0; old < keys.length; old++) {
      if (keys[old] === 0) continue;
      let slot = slotOf(keys[old]! - 1, ids[old]!, this.#mask);
      while (this.#keys[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#keys[slot] = keys[old]!;
      this.#ids[slot] = ids[old]!;
    }
  }
}

/** Ids are SHA-256 bits: their low 32 are spread evenly already; the key number is mixed in. */
function slotOf(key: number, id: number, mask: number): number {
  return ((id >>> 0) ^ Math.imul(key, 0x9e3779b1)) & mask;
}

export class CommittedVisitors {
  /**
   * The number of each (project, hour, path) with remembered ids, found by one Map lookup by the
   * path (a string the page cache holds, its hash kept); a key's number is twice its path's, plus
   * one for AI agents (keyNumberOf()).
   */
  #paths = new ProjectHours<Map<string, number>>(() => new Map());
  #nextPath = 0;
  #pairs = new PairTable();
  #ids = 0;
  /**
   * Views whose id was found committed, by the numbers of the hasher that found them
   * (NumberedVisits); `#generation` is that hasher's (VisitorHasher.generation): its sender
   * numbers mean nothing to another one.
   */
  #numbered = new NumberedVisits();
  #generation: object | null = null;

  /** True when this id was committed for this key (ingest then leaves it out of its sums). */
  has(projectId: string, hourSeconds: number, visitorClass: VisitorClass, path: string, id: number): boolean {
    return this.hasKeyed(this.keyNumber(projectId, hourSeconds, visitorClass, path), id);
  }

  /**
   * The number of a (project, hour, class, path) key, which hasKeyed(), hasNumbered() and
   * rememberNumbered() take in its place: a view's checks find the key once. -1 when no id was
   * committed for it. It holds until the next committed(), which may number keys again.
   */
  keyNumber(projectId: string, hourSeconds: number, visitorClass: VisitorClass, path: string): number {
    const number = this.#paths.find(projectId, hourSeconds)?.get(path);
    return number === undefined ? -1 : keyNumberOf(number, visitorClass);
  }

  /** has() for the key of this number (keyNumber()). */
  hasKeyed(key: number, id: number): boolean {
    return key !== -1 && this.#pairs.has(key, id);
  }

  /**
   * True when the visitor of (sender, address), numbers of the hasher generation `generation`,
   * was remembered by rememberNumbered() for the key of this number (keyNumber()): its id was
   * committed, and need not be looked up. False says nothing: hasKeyed() decides.
   */
  hasNumbered(key: number, generation: object, sender: number, address: number): boolean {
    if (generation !== this.#generation) {
      // Another day's hasher, or its memo started over: numbers of the last one are forgotten.
      if (this.#numbered.size > 0) this.#numbered = new NumberedVisits();
      this.#generation = generation;
      return false;
    }
    return key !== -1 && this.#numbered.has(key, sender, address);
  }

  /** Remembers for hasNumbered() a visitor whose id hasKeyed() found committed for this key. */
  rememberNumbered(key: number, generation: object, sender: number, address: number): void {
    // As many as the ids they stand for (one id per sender and address): bounded by MEMO_LIMIT.
    if (generation === this.#generation && key !== -1 && this.#numbered.size < MEMO_LIMIT)
      this.#numbered.add(key, sender, address);
  }

  /** The ids of sets not committed before, each once (parts of sets merged into one set per key). */
  unseen(sets: VisitorSets): VisitorSets {
    const fresh = new VisitorSets();
    for (const set of sets.entries())
      for (const id of set.ids)
        if (!this.has(set.projectId, set.hourSeconds, set.visitorClass, set.path, id))
          fresh.add(set.projectId, set.hourSeconds, set.visitorClass, set.path, id);
    return fresh;
  }

  /** Remembers ids whose group commit succeeded (what unseen() gave for it). */
  committed(fresh: VisitorSets): void {
    for (const set of fresh.entries()) {
      if (this.#ids + set.ids.size > MEMO_LIMIT) {
        // Key numbers start over: the numbered visits made of them go too.
        this.#paths = new ProjectHours<Map<string, number>>(() => new Map());
        this.#nextPath = 0;
        this.#pairs = new PairTable();
        this.#ids = 0;
        this.#numbered = new NumberedVisits();
      }
      const key = this.#keyOf(set.projectId, set.hourSeconds, set.visitorClass, set.path);
      for (const id of set.ids) if (this.#pairs.add(key, id)) this.#ids++;
    }
  }

  #keyOf(projectId: string, hourSeconds: number, visitorClass: VisitorClass, path: string): number {
    const byPath = this.#paths.get(projectId, hourSeconds);
    let number = byPath.get(path);
    if (number === undefined) {
      number = this.#nextPath++;
      byPath.set(path, number);
    }
    return keyNumberOf(number, visitorClass);
  }
}

function keyNumberOf(pathNumber: number, visitorClass: VisitorClass): number {
  return pathNumber * 2 + (visitorClass === 'human' ? 0 : 1);
}

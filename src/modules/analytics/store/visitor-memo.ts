// The visitor ids this process has committed to staging, per (project, hour, class, path). A
// sketch counts each id once, and an id once committed stays stored (staged until a fold moves it,
// in one transaction, into the sketches), so a later group commit need not stage it again: under
// load most views are of readers already seen on that page that hour, and leaving their ids out
// spares encoding, sending, storing and folding them. Only ids of committed groups are remembered
// (a failed commit staged nothing); at most MEMO_LIMIT ids, then the memo starts empty again,
// which only means staging some ids twice (counted once all the same).
import { type VisitorClass, VisitorSets } from './visitor-sets.ts';

/** Ids remembered before the memo is emptied: a few tens of MB at most. */
const MEMO_LIMIT = 500_000;

export class CommittedVisitors {
  #seen = new VisitorSets();
  #ids = 0;

  /** True when this id was committed for this key (ingest then leaves it out of its sums). */
  has(projectId: string, hourSeconds: number, visitorClass: VisitorClass, path: string, id: number): boolean {
    return this.#seen.idsOf(projectId, hourSeconds, visitorClass, path)?.has(id) === true;
  }

  /** The ids of sets not committed before, each once (parts of sets merged into one set per key). */
  unseen(sets: VisitorSets): VisitorSets {
    const fresh = new VisitorSets();
    for (const set of sets.entries()) {
      const seen = this.#seen.idsOf(set.projectId, set.hourSeconds, set.visitorClass, set.path);
      for (const id of set.ids)
        if (seen === undefined || !seen.has(id))
          fresh.add(set.projectId, set.hourSeconds, set.visitorClass, set.path, id);
    }
    return fresh;
  }

  /** Remembers ids whose group commit succeeded (what unseen() gave for it). */
  committed(fresh: VisitorSets): void {
    for (const set of fresh.entries()) {
      if (this.#ids + set.ids.size > MEMO_LIMIT) {
        this.#seen = new VisitorSets();
        this.#ids = 0;
      }
      for (const id of set.ids)
        this.#seen.add(set.projectId, set.hourSeconds, set.visitorClass, set.path, id);
      this.#ids += set.ids.size;
    }
  }
}

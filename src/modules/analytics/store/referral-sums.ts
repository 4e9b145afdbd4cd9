// Human views referred by AI assistants, summed per (project, hour, assistant, path): what ingest
// carries next to its ViewSums, staged with them and written by the merge (referral-writes.ts).
// Referred views are few next to all views, so a plain key string per sum is cheap enough.

export interface ReferralCount {
  projectId: string;
  hourSeconds: number;
  assistant: string;
  path: string;
  views: number;
}

/** The staged form (JSON). */
export type EncodedReferrals = [
  projectId: string,
  hourSeconds: number,
  assistant: string,
  path: string,
  views: number,
][];

export class ReferralSums {
  readonly #byKey = new Map<string, ReferralCount>();

  get isEmpty(): boolean {
    return this.#byKey.size === 0;
  }

  add(projectId: string, hourSeconds: number, assistant: string, path: string, views: number): void {
    const key = `${projectId}\0${hourSeconds}\0${assistant}\0${path}`;
    const found = this.#byKey.get(key);
    if (found === undefined) this.#byKey.set(key, { projectId, hourSeconds, assistant, path, views });
    else found.views += views;
  }

  addSums(other: ReferralSums): void {
    for (const c of other.#byKey.values()) this.add(c.projectId, c.hourSeconds, c.assistant, c.path, c.views);
  }

  encode(): EncodedReferrals {
    return [...this.#byKey.values()].map((c) => [c.projectId, c.hourSeconds, c.assistant, c.path, c.views]);
  }

  addEncoded(entries: EncodedReferrals): void {
    for (const [projectId, hourSeconds, assistant, path, views] of entries)
      this.add(projectId, hourSeconds, assistant, path, views);
  }

  /** The counts of the given projects, sorted by key (the writers' lock order). */
  sortedCounts(projectIds: ReadonlySet<string>): ReferralCount[] {
    return [...this.#byKey.entries()]
      .filter(([, c]) => projectIds.has(c.projectId))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, c]) => c);
  }

  /** Every project with counts here. */
  projectIds(): Set<string> {
    const ids = new Set<string>();
    for (const c of this.#byKey.values()) ids.add(c.projectId);
    return ids;
  }
}

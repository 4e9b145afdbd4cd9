// Page views summed per rollup key (project, hour, class, agent, verification, path), held as
// nested Maps: adding a row looks up strings the row already holds (whose hashes V8 keeps)
// instead of building a key string per row, which cost more than the rest of the sum. Used by
// ingestion to sum a group commit's views, to stage them compactly, and to merge them.
import type { TrafficClass } from './queries.ts';
import { CountSums, type KeyedCount, type PageViewCount, pageViewCountProblem } from './rollups.ts';

const HOUR_MS = 3_600_000;

type ByPath = Map<string, number>;
type ByVerification = Map<string, ByPath>;
type ByAgent = Map<string, ByVerification>;
type ByClass = Map<TrafficClass, ByAgent>;
type ByHour = Map<number, ByClass>;

/**
 * The staged form (JSON): one entry per (project, hour, class, agent, verification) with its
 * paths and views as pairs. Arrays, not objects keyed by path, so any path text is safe.
 */
export type EncodedSums = [
  projectId: string,
  hourSeconds: number,
  trafficClass: TrafficClass,
  agent: string,
  verification: string,
  pathsAndViews: (string | number)[],
][];

function child<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export class ViewSums {
  readonly #byProject = new Map<string, ByHour>();
  /** All views added. */
  views = 0;

  /** Adds a row, checked as the rollups will check it (a TypeError names what is wrong). */
  addRow(row: PageViewCount, index: number): void {
    const problem = pageViewCountProblem(row);
    if (problem !== null) throw new TypeError(`page views row ${index}: ${problem}`);
    const hourSeconds = Math.floor(row.hour.getTime() / HOUR_MS) * 3600;
    this.add(
      row.projectId,
      hourSeconds,
      row.trafficClass,
      row.agent ?? '',
      row.verification ?? '',
      row.path,
      row.views,
    );
  }

  /** Adds views that were checked already (by addRow, here or in the process that staged them). */
  add(
    projectId: string,
    hourSeconds: number,
    trafficClass: TrafficClass,
    agent: string,
    verification: string,
    path: string,
    views: number,
  ): void {
    if (views === 0) return;
    const byHour = child(this.#byProject, projectId, () => new Map());
    const byClass = child(byHour, hourSeconds, () => new Map());
    const byAgent = child(byClass, trafficClass, () => new Map());
    const byVerification = child(byAgent, agent, () => new Map());
    const byPath = child(byVerification, verification, () => new Map());
    const sum = (byPath.get(path) ?? 0) + views;
    if (!Number.isSafeInteger(sum))
      throw new RangeError(`page views: the count for ${path} exceeds ${Number.MAX_SAFE_INTEGER}`);
    byPath.set(path, sum);
    this.views += views;
  }

  addSums(other: ViewSums): void {
    other.#forEachEntry((projectId, hourSeconds, trafficClass, agent, verification, byPath) => {
      for (const [path, views] of byPath)
        this.add(projectId, hourSeconds, trafficClass, agent, verification, path, views);
    });
  }

  encode(): EncodedSums {
    const entries: EncodedSums = [];
    this.#forEachEntry((projectId, hourSeconds, trafficClass, agent, verification, byPath) => {
      const pairs: (string | number)[] = [];
      for (const [path, views] of byPath) pairs.push(path, views);
      entries.push([projectId, hourSeconds, trafficClass, agent, verification, pairs]);
    });
    return entries;
  }

  /** Adds what encode() gave (parsed back from JSON). */
  addEncoded(entries: EncodedSums): void {
    for (const [projectId, hourSeconds, trafficClass, agent, verification, pairs] of entries) {
      for (let i = 0; i < pairs.length; i += 2) {
        this.add(
          projectId,
          hourSeconds,
          trafficClass,
          agent,
          verification,
          pairs[i] as string,
          pairs[i + 1] as number,
        );
      }
    }
  }

  /** Every key with its views, sorted in the rollup writers' order (CountSums). */
  sortedCounts(): KeyedCount[] {
    const sums = new CountSums();
    const hours = new Map<number, string>();
    this.#forEachEntry((projectId, hourSeconds, trafficClass, agent, verification, byPath) => {
      let hour = hours.get(hourSeconds);
      if (hour === undefined) {
        hour = new Date(hourSeconds * 1000).toISOString();
        hours.set(hourSeconds, hour);
      }
      for (const [path, views] of byPath) {
        sums.add({ projectId, hour, hourSeconds, path, trafficClass, agent, verification, views });
      }
    });
    return sums.sorted();
  }

  #forEachEntry(
    visit: (
      projectId: string,
      hourSeconds: number,
      trafficClass: TrafficClass,
      agent: string,
      verification: string,
      byPath: ByPath,
    ) => void,
  ): void {
    for (const [projectId, byHour] of this.#byProject)
      for (const [hourSeconds, byClass] of byHour)
        for (const [trafficClass, byAgent] of byClass)
          for (const [agent, byVerification] of byAgent)
            for (const [verification, byPath] of byVerification)
              visit(projectId, hourSeconds, trafficClass, agent, verification, byPath);
  }
}

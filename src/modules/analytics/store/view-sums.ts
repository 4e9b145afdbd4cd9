// Page views summed per rollup key (project, hour, class, agent, verification, path), held as
// nested Maps: adding a row looks up strings the row already holds (whose hashes V8 keeps)
// instead of building a key string per row, which cost more than the rest of the sum. Used by
// ingestion to sum a group commit's views, to stage them compactly, and to merge them.

import { HOUR_MS } from '../../../util/time.ts';
import { FormatSums } from './format-sums.ts';
import type { KeyedCount } from './keyed-count.ts';
import { ProjectHours } from './project-hours.ts';
import type { TrafficClass } from './queries.ts';
import { ReferralSums } from './referral-sums.ts';
import { CountSums, type PageViewCount, pageViewCountProblem } from './rollups.ts';
import { VisitorSets } from './visitor-sets.ts';

export type ByPath = Map<string, number>;
type ByVerification = Map<string, ByPath>;
type ByAgent = Map<string, ByVerification>;
type ByClass = Map<TrafficClass, ByAgent>;

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

/** A copy of nested Maps `depth` levels deep (the innermost maps copied too). */
// biome-ignore lint/suspicious/noExplicitAny: the levels differ in key types; depth says which.
function copyMaps(map: Map<any, any>, depth: number): Map<any, any> {
  if (depth === 0) return new Map(map);
  const copy = new Map();
  for (const [key, inner] of map) copy.set(key, copyMaps(inner, depth - 1));
  return copy;
}

/** Merges nested Maps `depth` levels deep; at the innermost level both maps go to mergeLeaves. */
function mergeInto(
  // biome-ignore lint/suspicious/noExplicitAny: as in copyMaps.
  target: Map<any, any>,
  // biome-ignore lint/suspicious/noExplicitAny: as in copyMaps.
  source: Map<any, any>,
  depth: number,
  mergeLeaves: (target: ByPath, source: ByPath) => void,
): void {
  // forEach: for-of would make an entry array per key (addSums below).
  source.forEach((inner, key) => {
    const existing = target.get(key);
    if (existing === undefined) target.set(key, copyMaps(inner, depth - 1));
    else if (depth === 1) mergeLeaves(existing, inner);
    else mergeInto(existing, inner, depth - 1, mergeLeaves);
  });
}

export class ViewSums {
  readonly #hours = new ProjectHours<ByClass>(() => new Map());
  /** All views added. */
  views = 0;
  /** The views' visitor ids, staged and merged with them (visitor-writes.ts). */
  readonly visitors = new VisitorSets();
  /** Its human views referred by AI assistants, staged and merged with them. */
  readonly referrals = new ReferralSums();
  /** Its views served as other than html, and MCP calls, staged and merged with them. */
  readonly formats = new FormatSums();

  /** Rows summed, each checked (a TypeError names the first bad one). */
  static ofRows(rows: Iterable<PageViewCount>): ViewSums {
    const sums = new ViewSums();
    let index = 0;
    for (const row of rows) sums.addRow(row, index++);
    return sums;
  }

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
    this.addToPaths(this.pathsOf(projectId, hourSeconds, trafficClass, agent, verification), path, views);
  }

  /**
   * The paths map of one (project, hour, class, agent, verification), made when missing: a
   * caller that adds many views of one key (a request's tally, per view kind) finds it once.
   * Valid until addSums, which may replace maps.
   */
  pathsOf(
    projectId: string,
    hourSeconds: number,
    trafficClass: TrafficClass,
    agent: string,
    verification: string,
  ): ByPath {
    const byClass = this.#hours.get(projectId, hourSeconds);
    let byAgent = byClass.get(trafficClass);
    if (byAgent === undefined) {
      byAgent = new Map();
      byClass.set(trafficClass, byAgent);
    }
    let byVerification = byAgent.get(agent);
    if (byVerification === undefined) {
      byVerification = new Map();
      byAgent.set(agent, byVerification);
    }
    let byPath = byVerification.get(verification);
    if (byPath === undefined) {
      byPath = new Map();
      byVerification.set(verification, byPath);
    }
    return byPath;
  }

  /** Adds checked views of `path` to a map pathsOf gave. */
  addToPaths(byPath: ByPath, path: string, views: number): void {
    const sum = (byPath.get(path) ?? 0) + views;
    if (!Number.isSafeInteger(sum))
      throw new RangeError(`page views: the count for ${path} exceeds ${Number.MAX_SAFE_INTEGER}`);
    byPath.set(path, sum);
    this.views += views;
  }

  /**
   * Adds other's sums level by level: a map this one lacks is copied whole, and paths are summed
   * with two lookups each (a group commit adds up its requests' sums this way).
   */
  addSums(other: ViewSums): void {
    const byProject = this.#hours.byProject;
    for (const [projectId, otherByHour] of other.#hours.byProject) {
      const byHour = byProject.get(projectId);
      if (byHour === undefined) byProject.set(projectId, copyMaps(otherByHour, 4));
      else
        mergeInto(byHour, otherByHour, 4, (byPath: ByPath, otherByPath: ByPath) => {
          // forEach, not for-of: for-of makes a [path, views] array per entry, which was most
          // of what a group's merge allocated.
          otherByPath.forEach((views, path) => {
            const sum = (byPath.get(path) ?? 0) + views;
            if (!Number.isSafeInteger(sum))
              throw new RangeError(`page views: the count for ${path} exceeds ${Number.MAX_SAFE_INTEGER}`);
            byPath.set(path, sum);
          });
        });
    }
    this.views += other.views;
    this.visitors.addSets(other.visitors);
    this.referrals.addSums(other.referrals);
    this.formats.addSums(other.formats);
    // The remembered run may now point at a replaced map: forget it.
    this.#hours.forget();
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
    for (const [projectId, byHour] of this.#hours.byProject)
      for (const [hourSeconds, byClass] of byHour)
        for (const [trafficClass, byAgent] of byClass)
          for (const [agent, byVerification] of byAgent)
            for (const [verification, byPath] of byVerification)
              visit(projectId, hourSeconds, trafficClass, agent, verification, byPath);
  }
}

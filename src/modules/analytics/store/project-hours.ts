// Values kept per (project, hour), found through a Map per project of Maps per hour, with the
// last (project, hour) remembered: ingest adds rows in runs of one project and hour (a request's,
// a group's), so most lookups are two comparisons. ViewSums, VisitorSets and CommittedVisitors
// keep their per-class maps here.

export class ProjectHours<V> {
  /** Read freely; a caller that changes it directly calls forget() afterwards. */
  readonly byProject = new Map<string, Map<number, V>>();
  readonly #make: () => V;
  #lastProject: string | null = null;
  #lastHour = Number.NaN;
  #last: V | undefined;

  /** `make` gives the value of a (project, hour) met for the first time. */
  constructor(make: () => V) {
    this.#make = make;
  }

  /** The value of (project, hour), made when missing. */
  get(projectId: string, hourSeconds: number): V {
    if (projectId === this.#lastProject && hourSeconds === this.#lastHour) return this.#last!;
    let byHour = this.byProject.get(projectId);
    if (byHour === undefined) {
      byHour = new Map();
      this.byProject.set(projectId, byHour);
    }
    let value = byHour.get(hourSeconds);
    if (value === undefined) {
      value = this.#make();
      byHour.set(hourSeconds, value);
    }
    this.#remember(projectId, hourSeconds, value);
    return value;
  }

  /** The value of (project, hour) if there is one (none is made). */
  find(projectId: string, hourSeconds: number): V | undefined {
    if (projectId === this.#lastProject && hourSeconds === this.#lastHour) return this.#last;
    const value = this.byProject.get(projectId)?.get(hourSeconds);
    if (value !== undefined) this.#remember(projectId, hourSeconds, value);
    return value;
  }

  /** Forgets the remembered (project, hour): byProject was changed directly. */
  forget(): void {
    this.#lastProject = null;
    this.#last = undefined;
  }

  get isEmpty(): boolean {
    return this.byProject.size === 0;
  }

  #remember(projectId: string, hourSeconds: number, value: V): void {
    this.#lastProject = projectId;
    this.#lastHour = hourSeconds;
    this.#last = value;
  }
}

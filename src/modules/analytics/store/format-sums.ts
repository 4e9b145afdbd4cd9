// Views served as something other than html, and MCP calls, summed per key: what ingest carries
// next to its ViewSums (as it carries referrals), staged with them and written by the merge
// (format-writes.ts); log import writes them straight (recordFormatsIn). html views are never
// held: a view is html unless counted here. These are few next to all views (agents fetching
// Markdown, llms.txt, MCP calls), so a plain key string per sum is cheap enough. The same views
// are also summed per page (addPage: format, path and class, for the format filter of /views),
// human and AI only, as /views counts no bot views.
import type { TrafficClass } from './queries.ts';

/** The formats kept: every one but html. */
export type StoredFormat = 'markdown' | 'llms' | 'mcp';

export interface FormatCount {
  projectId: string;
  hourSeconds: number;
  format: StoredFormat;
  trafficClass: TrafficClass;
  /** The AI agent; '' for human and bot views. */
  agent: string;
  /** The AI agent's verification; '' for human and bot views. */
  verification: string;
  views: number;
}

/** What an MCP record says about its call (the ingest API's MCP fields). */
export interface McpCall {
  method: string;
  /** '' when the method names no tool. */
  tool: string;
  clientName: string;
  clientVersion: string;
}

export interface McpCallCount extends McpCall {
  projectId: string;
  hourSeconds: number;
  calls: number;
}

/** A page's views in a format but html (migration 0030); human and AI only. */
export interface FormatPageCount {
  projectId: string;
  hourSeconds: number;
  format: StoredFormat;
  path: string;
  trafficClass: 'human' | 'ai';
  views: number;
}

/** The staged form (JSON). */
export interface EncodedFormats {
  v: [string, number, StoredFormat, TrafficClass, string, string, number][];
  c: [string, number, string, string, string, string, number][];
  /** Per page; absent from rows staged before pages were kept (their views count as html per page). */
  p?: [string, number, StoredFormat, string, 'human' | 'ai', number][];
}

const byKeyOrder = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

function checkedSum(sum: number): number {
  if (!Number.isSafeInteger(sum))
    throw new RangeError(`format counts: a count exceeds ${Number.MAX_SAFE_INTEGER}`);
  return sum;
}

export class FormatSums {
  readonly #views = new Map<string, FormatCount>();
  readonly #calls = new Map<string, McpCallCount>();
  readonly #pages = new Map<string, FormatPageCount>();

  get isEmpty(): boolean {
    return this.#views.size === 0 && this.#calls.size === 0 && this.#pages.size === 0;
  }

  /** A view's format; html views are not kept, and human and bot views keep no agent. */
  addView(
    projectId: string,
    hourSeconds: number,
    format: StoredFormat | 'html',
    trafficClass: TrafficClass,
    agent: string,
    verification: string,
    views: number,
  ): void {
    if (format === 'html' || views === 0) return;
    const ai = trafficClass === 'ai';
    const agentKept = ai ? agent : '';
    const verificationKept = ai ? verification : '';
    const key = `${projectId}\0${hourSeconds}\0${format}\0${trafficClass}\0${agentKept}\0${verificationKept}`;
    const found = this.#views.get(key);
    if (found !== undefined) found.views = checkedSum(found.views + views);
    else
      this.#views.set(key, {
        projectId,
        hourSeconds,
        format,
        trafficClass,
        agent: agentKept,
        verification: verificationKept,
        views,
      });
  }

  /** A page's view in its format; html and bot views are not kept. */
  addPage(
    projectId: string,
    hourSeconds: number,
    format: StoredFormat | 'html',
    trafficClass: TrafficClass,
    path: string,
    views: number,
  ): void {
    if (format === 'html' || trafficClass === 'bot' || views === 0) return;
    const key = `${projectId}\0${hourSeconds}\0${format}\0${path}\0${trafficClass}`;
    const found = this.#pages.get(key);
    if (found !== undefined) found.views = checkedSum(found.views + views);
    else this.#pages.set(key, { projectId, hourSeconds, format, path, trafficClass, views });
  }

  addCall(projectId: string, hourSeconds: number, call: McpCall, calls: number): void {
    if (calls === 0) return;
    const key = `${projectId}\0${hourSeconds}\0${call.method}\0${call.tool}\0${call.clientName}\0${call.clientVersion}`;
    const found = this.#calls.get(key);
    if (found !== undefined) found.calls = checkedSum(found.calls + calls);
    else
      this.#calls.set(key, {
        projectId,
        hourSeconds,
        method: call.method,
        tool: call.tool,
        clientName: call.clientName,
        clientVersion: call.clientVersion,
        calls,
      });
  }

  addSums(other: FormatSums): void {
    for (const c of other.#views.values())
      this.addView(c.projectId, c.hourSeconds, c.format, c.trafficClass, c.agent, c.verification, c.views);
    for (const c of other.#calls.values()) this.addCall(c.projectId, c.hourSeconds, c, c.calls);
    for (const c of other.#pages.values())
      this.addPage(c.projectId, c.hourSeconds, c.format, c.trafficClass, c.path, c.views);
  }

  encode(): EncodedFormats {
    return {
      v: [...this.#views.values()].map((c) => [
        c.projectId,
        c.hourSeconds,
        c.format,
        c.trafficClass,
        c.agent,
        c.verification,
        c.views,
      ]),
      c: [...this.#calls.values()].map((c) => [
        c.projectId,
        c.hourSeconds,
        c.method,
        c.tool,
        c.clientName,
        c.clientVersion,
        c.calls,
      ]),
      ...(this.#pages.size === 0
        ? {}
        : {
            p: [...this.#pages.values()].map((c) => [
              c.projectId,
              c.hourSeconds,
              c.format,
              c.path,
              c.trafficClass,
              c.views,
            ]),
          }),
    };
  }

  addEncoded(encoded: EncodedFormats): void {
    for (const [projectId, hourSeconds, format, trafficClass, agent, verification, views] of encoded.v)
      this.addView(projectId, hourSeconds, format, trafficClass, agent, verification, views);
    for (const [projectId, hourSeconds, method, tool, clientName, clientVersion, calls] of encoded.c)
      this.addCall(projectId, hourSeconds, { method, tool, clientName, clientVersion }, calls);
    for (const [projectId, hourSeconds, format, path, trafficClass, views] of encoded.p ?? [])
      this.addPage(projectId, hourSeconds, format, trafficClass, path, views);
  }

  /** The view counts of the given projects, sorted by key (the writers' lock order). */
  sortedViews(projectIds: ReadonlySet<string>): FormatCount[] {
    return [...this.#views.entries()]
      .filter(([, c]) => projectIds.has(c.projectId))
      .sort(byKeyOrder)
      .map(([, c]) => c);
  }

  /** The call counts of the given projects, sorted by key. */
  sortedCalls(projectIds: ReadonlySet<string>): McpCallCount[] {
    return [...this.#calls.entries()]
      .filter(([, c]) => projectIds.has(c.projectId))
      .sort(byKeyOrder)
      .map(([, c]) => c);
  }

  /** The page counts of the given projects, sorted by key. */
  sortedPages(projectIds: ReadonlySet<string>): FormatPageCount[] {
    return [...this.#pages.entries()]
      .filter(([, c]) => projectIds.has(c.projectId))
      .sort(byKeyOrder)
      .map(([, c]) => c);
  }

  /** Every project with counts here. */
  projectIds(): Set<string> {
    const ids = new Set<string>();
    for (const c of this.#views.values()) ids.add(c.projectId);
    for (const c of this.#calls.values()) ids.add(c.projectId);
    for (const c of this.#pages.values()) ids.add(c.projectId);
    return ids;
  }
}

// Where ingest-batch.ts puts each record's outcome: views summed per rollup key (hour, class,
// agent, verification, path) in a ViewSums, drops counted per reason, rejections listed. The sums
// are nested Maps keyed by strings the classification already holds (a view kind's parts, a
// cached path), so a record builds no key string of its own; the group commit adds them up as
// they are.

import type { Rejection, ViewFormat } from '../../../contract/index.ts';
import { type AiReferrers, utmSourceOf } from '../classification/ai-referrers.ts';
import type { ClassificationOutcome, DropReason } from '../classification/types.ts';
import { DROP_REASONS, isDropped } from '../classification/types.ts';
import { viewFormatOf } from '../classification/view-format.ts';
import { type ViewKind, viewKindOf } from '../classification/view-kind.ts';
import {
  type ByPath,
  type CommittedVisitors,
  type McpCall,
  ViewSums,
  type VisitorHasher,
} from '../store/index.ts';
import type { RecordRejectionCode } from './record-validation.ts';

/** What ingest asks the writer's memo of staged visitor ids (visitor-memo.ts). */
export type StagedIdCheck = Pick<
  CommittedVisitors,
  'has' | 'keyNumber' | 'hasKeyed' | 'hasNumbered' | 'rememberNumbered'
>;

/** Receives one outcome per record, in batch order. */
export interface OutcomeSink {
  /**
   * A page view of `path` in the hour `hour` (hours since the epoch: hourNumberOf, a small
   * integer where epoch milliseconds would be a heap number per record), sent from `ip`
   * by `userAgent` (for the visitor id; undefined when the record has none), from `referrer` to
   * `target` (the URL or path text as sent: its utm_source), served as `format` (html when
   * omitted); `mcp` is the call of an MCP record; `sender`, an object standing for `userAgent`
   * alone (the fast path's profile of it), finds its visitor id faster (visitor-ids.ts).
   */
  view(
    index: number,
    hour: number,
    kind: ViewKind,
    path: string,
    pathHasNul: boolean,
    ip?: string,
    userAgent?: string,
    referrer?: string,
    target?: string,
    format?: ViewFormat,
    mcp?: McpCall | null,
    sender?: object,
  ): void;
  drop(reason: DropReason): void;
}

/** What a general-path record adds to its outcome: its format as sent (null: worked out), its MCP call. */
export interface RecordExtras {
  format: ViewFormat | null;
  accept: string | undefined;
  mcp: McpCall | null;
}

/** Hands a general pipeline outcome to a sink. */
export function reportOutcome(
  sink: OutcomeSink,
  index: number,
  hour: number,
  outcome: ClassificationOutcome,
  ip?: string,
  userAgent?: string,
  referrer?: string,
  target?: string,
  extras?: RecordExtras,
): void {
  if (isDropped(outcome)) sink.drop(outcome.drop);
  else
    sink.view(
      index,
      hour,
      viewKindOf(outcome),
      outcome.path,
      outcome.path.includes('\0'),
      ip,
      userAgent,
      referrer,
      target,
      extras?.format ?? viewFormatOf(outcome.path, outcome.markdown, extras?.accept),
      extras?.mcp ?? null,
    );
}

export class RollupTally implements OutcomeSink {
  /** The accepted views per rollup key. */
  readonly sums = new ViewSums();
  readonly rejected: Rejection[] = [];
  readonly #dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<
    DropReason,
    number
  >;
  readonly #projectId: string;
  readonly #visitors: VisitorHasher | null;
  readonly #referrers: AiReferrers | null;
  readonly #committedVisitors: StagedIdCheck | null;
  /**
   * The sums' paths map of each view kind, per hour (in seconds), the last hour's kept at hand.
   * The fast path hands one shared ViewKind object for all views of a user agent's kind, so one
   * lookup by identity replaces the sums' three by class, agent and verification. The general
   * path's kinds are fresh objects: each costs an entry (a batch holds at most 1,000 records).
   */
  readonly #kindsByHour = new Map<number, Map<ViewKind, ByPath>>();
  #lastHourSeconds = Number.NaN;
  #lastHourKinds = new Map<ViewKind, ByPath>();

  /** Without a hasher, views are counted but no visitor ids are kept; without referrers, no referrals. */
  constructor(
    projectId: string,
    visitors: VisitorHasher | null = null,
    referrers: AiReferrers | null = null,
    committedVisitors: StagedIdCheck | null = null,
  ) {
    this.#committedVisitors = committedVisitors;
    this.#projectId = projectId;
    this.#visitors = visitors;
    this.#referrers = referrers;
  }

  reject(index: number, code: RecordRejectionCode, message: string): void {
    this.rejected.push({ index, code, message });
  }

  drop(reason: DropReason): void {
    this.#dropped[reason]++;
  }

  view(
    index: number,
    hour: number,
    kind: ViewKind,
    path: string,
    pathHasNul: boolean,
    ip?: string,
    userAgent?: string,
    referrer?: string,
    target?: string,
    format: ViewFormat = 'html',
    mcp: McpCall | null = null,
    sender?: object,
  ): void {
    // Defence in depth: NUL is refused on input, but a NUL reaching the commit would fail the
    // whole group, other clients' views included.
    if (pathHasNul || kind.agentHasNul) {
      this.reject(
        index,
        'invalid_field',
        'The record leads to a path or agent name holding the NUL character.',
      );
      return;
    }
    // Below 2^31 until 2038: a small integer too (this build of V8 has 32-bit ones).
    const hourSeconds = hour * 3600;
    this.sums.addToPaths(this.#pathsOf(hourSeconds, kind), path, 1);
    if (format !== 'html') {
      this.sums.formats.addView(
        this.#projectId,
        hourSeconds,
        format,
        kind.trafficClass,
        kind.agent,
        kind.verification,
        1,
      );
      this.sums.formats.addPage(this.#projectId, hourSeconds, format, kind.trafficClass, path, 1);
      if (mcp !== null) this.sums.formats.addCall(this.#projectId, hourSeconds, mcp, 1);
    }
    const visitorClass = kind.trafficClass;
    if (
      visitorClass === 'human' &&
      this.#referrers !== null &&
      (referrer || target?.includes('utm_source='))
    ) {
      const assistant = this.#referrers.assistantOf(referrer, utmSourceOf(target));
      if (assistant !== null) this.sums.referrals.add(this.#projectId, hourSeconds, assistant.name, path, 1);
    }
    if (this.#visitors === null || visitorClass === 'bot') return;
    this.#visitor(hourSeconds, visitorClass, path, ip, userAgent, sender);
  }

  /** Adds the view's visitor id to the sums, unless the writer has staged it for this key already. */
  #visitor(
    hourSeconds: number,
    visitorClass: 'human' | 'ai',
    path: string,
    ip: string | undefined,
    userAgent: string | undefined,
    sender: object | undefined,
  ): void {
    const hasher = this.#visitors!;
    const committed = this.#committedVisitors;
    const projectId = this.#projectId;
    // A canonical IPv4 address and its sender's number stand for the visitor: most views are of
    // readers whose id the writer staged for this page and hour already, found by these numbers
    // alone, without the id (visitor-memo.ts, numbered-visits.ts).
    const address = committed === null || ip === undefined ? -1 : hasher.addressNumber(ip);
    if (address !== -1) {
      const generation = hasher.generation;
      const number = hasher.senderNumber(projectId, visitorClass, ip!, userAgent, sender);
      if (number !== -1) {
        const key = committed!.keyNumber(projectId, hourSeconds, visitorClass, path);
        if (committed!.hasNumbered(key, generation, number, address)) return;
        const id = hasher.numberedId(projectId, visitorClass, ip!, userAgent, number, address);
        if (committed!.hasKeyed(key, id)) committed!.rememberNumbered(key, generation, number, address);
        else this.sums.visitors.add(projectId, hourSeconds, visitorClass, path, id);
        return;
      }
    }
    const id = hasher.id(projectId, visitorClass, ip, userAgent, sender);
    if (id === null) return;
    // An id the writer has staged for this page and hour already would be left out at the commit
    // (visitor-memo.ts): leaving it out here spares carrying it there.
    if (committed?.has(projectId, hourSeconds, visitorClass, path, id)) return;
    this.sums.visitors.add(projectId, hourSeconds, visitorClass, path, id);
  }

  #pathsOf(hourSeconds: number, kind: ViewKind): ByPath {
    let kinds = this.#lastHourKinds;
    if (hourSeconds !== this.#lastHourSeconds) {
      let ofHour = this.#kindsByHour.get(hourSeconds);
      if (ofHour === undefined) {
        ofHour = new Map();
        this.#kindsByHour.set(hourSeconds, ofHour);
      }
      kinds = ofHour;
      this.#lastHourKinds = ofHour;
      this.#lastHourSeconds = hourSeconds;
    }
    let byPath = kinds.get(kind);
    if (byPath === undefined) {
      byPath = this.sums.pathsOf(
        this.#projectId,
        hourSeconds,
        kind.trafficClass,
        kind.agent,
        kind.verification,
      );
      kinds.set(kind, byPath);
    }
    return byPath;
  }

  /** Views counted: every accepted record adds one. */
  get accepted(): number {
    return this.sums.views;
  }

  /** Drops per reason, leaving out reasons with none. */
  droppedCounts(): Record<string, number> {
    const counted: Record<string, number> = {};
    for (const [reason, count] of Object.entries(this.#dropped)) if (count > 0) counted[reason] = count;
    return counted;
  }
}

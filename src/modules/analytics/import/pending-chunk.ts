// The lines of a log read since the last commit: the rollup rows they add, the unknown automated
// user agents they show, and their counts, which become the summary's once the chunk is committed
// (a crash before then counts none of them).
import { hourOf } from '../../../util/time.ts';
import type { ClassificationContext } from '../classification/context.ts';
import type { ClassifiedView, DropReason, TrafficClass } from '../classification/types.ts';
import { viewFormatOf } from '../classification/view-format.ts';
import type {
  ChunkReferral,
  ChunkRow,
  ChunkUnrecognized,
  ChunkVisitors,
  ImportChunk,
  LogPosition,
} from './chunk.ts';

/** What a view adds besides its count: its visitor's id and the assistant that referred it. */
export interface ViewExtras {
  visitorId: number | null;
  assistant: string | null;
}

export interface ChunkLimits {
  /** Lines per chunk at most: a crash re-reads at most this many. */
  lines: number;
  /** Distinct rollup rows per chunk at most. */
  rows: number;
  /** Estimated JSON size of a chunk at most (the control socket takes 1 MiB). */
  bytes: number;
}

/** The counts a summary adds up over the committed chunks. */
export interface CommittedCounts {
  newLines: number;
  accepted: number;
  malformed: number;
  blank: number;
  byClass: Record<TrafficClass, number>;
  dropped: Partial<Record<DropReason, number>>;
  malformedLines: { line: number; reason: string }[];
}

export class PendingChunk {
  readonly rows = new Map<string, ChunkRow>();
  /** Per hour, class and page: the distinct visitor ids. */
  readonly visitors = new Map<string, Omit<ChunkVisitors, 'ids'> & { ids: Set<number> }>();
  /** Per hour, assistant and page: referred human views. */
  readonly referrals = new Map<string, ChunkReferral>();
  /** Per lower-case product and class: views of unknown automated-looking user agents. */
  readonly unrecognized = new Map<string, ChunkUnrecognized>();
  /** The estimated JSON size of the chunk. */
  bytes = 2;
  lines = 0;
  accepted = 0;
  dropped = 0;
  malformed = 0;
  blank = 0;
  /** Lines that were requests with a page (kept or dropped after the path step). */
  recognised = 0;
  readonly byClass: Record<TrafficClass, number> = { human: 0, ai: 0, bot: 0 };
  readonly droppedBy: Partial<Record<DropReason, number>> = {};
  /** The malformed lines to list in the summary, by line number. */
  readonly malformedLines: { line: number; reason: string }[] = [];

  isFull(limits: ChunkLimits): boolean {
    return this.lines >= limits.lines || this.rows.size >= limits.rows || this.bytes >= limits.bytes;
  }

  addBlank(): void {
    this.blank++;
  }

  /** A line that is not a request in the format; `listed` when the summary still lists such lines. */
  addMalformed(line: number, reason: string, listed: boolean): void {
    this.malformed++;
    if (listed) this.malformedLines.push({ line, reason });
  }

  addDropped(reason: DropReason): void {
    this.dropped++;
    if (reason !== 'path_missing') this.recognised++;
    this.droppedBy[reason] = (this.droppedBy[reason] ?? 0) + 1;
  }

  addView(
    outcome: ClassifiedView,
    userAgent: string | undefined,
    atMs: number,
    classification: ClassificationContext,
    accept?: string,
    extras: ViewExtras = { visitorId: null, assistant: null },
  ): void {
    this.recognised++;
    this.accepted++;
    this.byClass[outcome.class]++;
    this.#countUnrecognized(outcome, userAgent, atMs, classification);
    const hour = new Date(hourOf(atMs)).toISOString();
    if (extras.visitorId !== null && outcome.class !== 'bot') {
      this.#addVisitor(hour, outcome.class, outcome.path, extras.visitorId);
    }
    if (extras.assistant !== null && outcome.class === 'human') {
      this.#addReferral(hour, extras.assistant, outcome.path);
    }
    // A log line is a request for a page: html, markdown (.md, Accept) or an llms.txt file.
    const format = viewFormatOf(outcome.path, outcome.markdown, accept);
    const key = `${hour}\n${outcome.path}\n${outcome.class}\n${outcome.agent}\n${outcome.verification}\n${format}`;
    const existing = this.rows.get(key);
    if (existing) existing.views++;
    else {
      this.rows.set(key, {
        hour,
        path: outcome.path,
        trafficClass: outcome.class,
        agent: outcome.agent,
        verification: outcome.verification,
        ...(format === 'html' ? {} : { format }),
        views: 1,
      });
      this.bytes += Buffer.byteLength(outcome.path) + outcome.agent.length + 120;
    }
  }

  /** The chunk as the sink applies it: its rows and the ledger's move from `from` to `to`. */
  body(
    head: Pick<ImportChunk, 'projectId' | 'fingerprint' | 'sourceName'>,
    from: LogPosition,
    to: LogPosition,
  ): ImportChunk {
    return {
      ...head,
      from,
      to,
      rows: [...this.rows.values()],
      ...(this.unrecognized.size > 0 ? { unrecognized: [...this.unrecognized.values()] } : {}),
      ...(this.visitors.size > 0
        ? { visitors: [...this.visitors.values()].map((v) => ({ ...v, ids: [...v.ids] })) }
        : {}),
      ...(this.referrals.size > 0 ? { referrals: [...this.referrals.values()] } : {}),
      stats: { accepted: this.accepted, dropped: this.dropped, malformed: this.malformed },
    };
  }

  /** Adds the chunk's counts to the committed ones, once it is committed. */
  countInto(counts: CommittedCounts, malformedListed: number): void {
    counts.newLines += this.lines;
    counts.accepted += this.accepted;
    counts.malformed += this.malformed;
    counts.blank += this.blank;
    for (const c of ['human', 'ai', 'bot'] as const) counts.byClass[c] += this.byClass[c];
    for (const [reason, count] of Object.entries(this.droppedBy) as [DropReason, number][]) {
      counts.dropped[reason] = (counts.dropped[reason] ?? 0) + count;
    }
    for (const entry of this.malformedLines) {
      if (counts.malformedLines.length < malformedListed) counts.malformedLines.push(entry);
    }
  }

  #addVisitor(hour: string, visitorClass: 'human' | 'ai', path: string, id: number): void {
    const key = `${hour}\n${visitorClass}\n${path}`;
    const found = this.visitors.get(key);
    if (found === undefined) {
      this.visitors.set(key, { hour, trafficClass: visitorClass, path, ids: new Set([id]) });
      this.bytes += Buffer.byteLength(path) + 80;
    } else if (!found.ids.has(id)) {
      found.ids.add(id);
      this.bytes += 18; // an id below 2^53 is at most 16 digits, and a comma
    }
  }

  #addReferral(hour: string, assistant: string, path: string): void {
    const key = `${hour}\n${assistant}\n${path}`;
    const found = this.referrals.get(key);
    if (found !== undefined) found.views++;
    else {
      this.referrals.set(key, { hour, assistant, path, views: 1 });
      this.bytes += Buffer.byteLength(path) + assistant.length + 70;
    }
  }

  /** A view only the default rules classified, from a user agent the list does not know. */
  #countUnrecognized(
    outcome: ClassifiedView,
    userAgent: string | undefined,
    atMs: number,
    classification: ClassificationContext,
  ): void {
    if (
      outcome.class === 'ai' ||
      (outcome.evidence.rule !== 'bot' && outcome.evidence.rule !== 'human_default')
    )
      return;
    const agent = classification.userAgents.classify(userAgent).unrecognized;
    if (agent === null) return;
    const at = new Date(atMs).toISOString();
    const key = `${agent.product.toLowerCase()}\n${outcome.class}`;
    const row = this.unrecognized.get(key);
    if (row !== undefined) {
      row.views++;
      if (at < row.firstSeen) row.firstSeen = at;
      if (at > row.lastSeen) row.lastSeen = at;
      return;
    }
    this.unrecognized.set(key, {
      product: agent.product,
      trafficClass: outcome.class,
      reason: agent.reason,
      example: agent.example,
      views: 1,
      firstSeen: at,
      lastSeen: at,
    });
    this.bytes += agent.example.length + agent.product.length + 160;
  }
}

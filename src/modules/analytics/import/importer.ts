// Imports one log: reads it line by line, skips the lines the ledger already counted (checking
// that they are the same lines), reads and classifies the rest, and commits them in chunks, each
// chunk's rollup rows and the ledger's advance in one transaction. A crash loses at most the
// chunk in flight, and the next run starts exactly where the ledger stands.
import { createHash, type Hash } from 'node:crypto';
import { HOUR_MS } from '../../../util/time.ts';
import { utmSourceOf } from '../classification/ai-referrers.ts';
import type { ClassificationContext } from '../classification/context.ts';
import { classifyRecord } from '../classification/pipeline.ts';
import { DROP_REASONS, type DropReason, type TrafficClass } from '../classification/types.ts';
import { EMPTY_SHA256, type LogPosition } from './chunk.ts';
import { importErrors } from './errors.ts';
import { type Line, readLineBatches } from './line-reader.ts';
import type { ParsedLine } from './parsed-line.ts';
import { type ChunkLimits, PendingChunk } from './pending-chunk.ts';
import type { ImportSink, LedgerEntry } from './sink.ts';
import { displayName, type LogSource } from './source.ts';
import { ImportVisitorIds } from './visitor-days.ts';

/** Requests before this are taken as a misread time (the web did not exist). */
const EARLIEST_MS = Date.UTC(1991, 0, 1);
/** Tolerated clock skew of a log's writer ahead of this machine. */
const FUTURE_SLACK_MS = 24 * HOUR_MS;

export type { ChunkLimits } from './pending-chunk.ts';

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { lines: 100_000, rows: 5_000, bytes: 600 * 1024 };

export interface ImportOptions {
  projectId: string;
  parse: (line: string) => ParsedLine;
  classification: ClassificationContext;
  sink: ImportSink;
  /** Malformed lines listed by number in the summary, at most. */
  malformedListed?: number;
  chunkLimits?: ChunkLimits;
  /** Called after each batch of lines and each commit, for a progress display. */
  onProgress?: (progress: { lines: number; bytesRead: number }) => void;
  now?: () => number;
  /** Visitor ids per day of the lines; one for the whole run (several logs) when given. */
  visitorIds?: ImportVisitorIds;
}

/** The run's visitor ids from a sink's current-day salt (visitor-days.ts). */
export function visitorIdsOf(sink: ImportSink): ImportVisitorIds {
  return new ImportVisitorIds(async (day) => {
    const hex = await sink.currentDaySalt(day);
    return hex === null ? null : Buffer.from(hex, 'hex');
  });
}

export interface SourceSummary {
  source: string;
  /** SHA-256 of the first line: the log's identity in the ledger; null when it has none yet. */
  fingerprint: string | null;
  status: 'imported' | 'up_to_date' | 'empty' | 'failed';
  /** Lines read in this run, including those counted by earlier imports. */
  lines: number;
  /** Of those, lines an earlier import had already counted (skipped). */
  alreadyImported: number;
  /** Lines counted by this run. */
  newLines: number;
  accepted: number;
  byClass: Record<TrafficClass, number>;
  dropped: Partial<Record<DropReason, number>>;
  blank: number;
  malformed: number;
  /** The first malformed lines, by line number (1-based) and why. */
  malformedLines: { line: number; reason: string }[];
  /** A last line without "\n" in a file that may still be written: left for the next import. */
  heldBackLastLine: boolean;
  error?: { code: string; message: string };
}

/** A summary with nothing counted yet: where every source's summary starts. */
export function emptySummary(source: string, status: SourceSummary['status']): SourceSummary {
  return {
    source,
    fingerprint: null,
    status,
    lines: 0,
    alreadyImported: 0,
    newLines: 0,
    accepted: 0,
    byClass: { human: 0, ai: 0, bot: 0 },
    dropped: {},
    blank: 0,
    malformed: 0,
    malformedLines: [],
    heldBackLastLine: false,
  };
}

/** The bytes a line adds to the prefix hash: the line and its "\n", or, for a cut line, its kept part and full length. */
function hashLine(hash: Hash, line: Line): void {
  hash.update(line.bytes);
  if (line.length > line.bytes.length) hash.update(`\0${line.length}`);
  if (line.terminated) hash.update('\n');
}

export async function importSource(source: LogSource, options: ImportOptions): Promise<SourceSummary> {
  const run = new SourceImport(source, options);
  try {
    await run.readAll();
  } catch (error) {
    source.stream.destroy();
    if (!isSourceFailure(error)) throw error;
    return run.failed(error);
  }
  return run.finished();
}

/**
 * One log's import, line by line: the first line names the log and finds its ledger entry; the
 * lines the ledger already counted are skipped once their bytes are checked to be the same; the
 * others are read and classified into the pending chunk, which is committed whenever it is full
 * and at the end.
 */
class SourceImport {
  readonly #source: LogSource;
  readonly #options: ImportOptions;
  readonly #limits: ChunkLimits;
  readonly #malformedListed: number;
  readonly #now: () => number;
  readonly #name: string;
  readonly #summary: SourceSummary;
  /** SHA-256 over the lines read so far: the ledger's check that a log still starts the same. */
  readonly #hash = createHash('sha256');
  #lineNumber = 0;
  #ledger: LedgerEntry | null = null;
  /** Lines an earlier import counted: read again only to check them. */
  #skipUntil = 0;
  /** Where the ledger stands for this log: the first lines committed, by this run or before. */
  #position: LogPosition = { lines: 0, sha256: EMPTY_SHA256 };
  #chunk = new PendingChunk();
  readonly #visitorIds: ImportVisitorIds;

  constructor(source: LogSource, options: ImportOptions) {
    this.#source = source;
    this.#options = options;
    this.#limits = options.chunkLimits ?? DEFAULT_CHUNK_LIMITS;
    this.#malformedListed = options.malformedListed ?? 20;
    this.#now = options.now ?? Date.now;
    this.#name = displayName(source.name);
    this.#summary = emptySummary(source.name === '-' ? '-' : source.name, 'empty');
    this.#visitorIds = options.visitorIds ?? visitorIdsOf(options.sink);
  }

  async readAll(): Promise<void> {
    for await (const batch of readLineBatches(this.#source.stream as AsyncIterable<Buffer>)) {
      for (const line of batch) {
        if (!line.terminated && !this.#source.lastLineComplete) {
          this.#summary.heldBackLastLine = true;
          break;
        }
        await this.#take(line);
      }
      this.#progress();
    }
    await this.#commit();
  }

  finished(): SourceSummary {
    const summary = this.#summary;
    if (this.#lineNumber === 0) summary.status = 'empty';
    else if (summary.newLines === 0) summary.status = 'up_to_date';
    else summary.status = 'imported';
    return summary;
  }

  failed(error: { code: string; message: string }): SourceSummary {
    this.#summary.status = 'failed';
    this.#summary.error = { code: error.code, message: error.message };
    return this.#summary;
  }

  async #take(line: Line): Promise<void> {
    this.#lineNumber++;
    this.#summary.lines = this.#lineNumber;
    hashLine(this.#hash, line);
    if (this.#lineNumber === 1) await this.#findLedgerEntry();
    if (this.#lineNumber <= this.#skipUntil) return this.#skipCounted();
    let text = line.bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    await this.#read(text, line.length > line.bytes.length);
    if (this.#chunk.isFull(this.#limits)) await this.#commit();
  }

  /** The first line is the log's fingerprint; the ledger says how much of that log is counted. */
  async #findLedgerEntry(): Promise<void> {
    const fingerprint = this.#hash.copy().digest('hex');
    this.#summary.fingerprint = fingerprint;
    [this.#ledger = null] = await this.#options.sink.readLedger(this.#options.projectId, [fingerprint]);
    this.#skipUntil = this.#ledger?.lines ?? 0;
  }

  /** A line an earlier import counted; at the last of them, the lines so far must hash as then. */
  #skipCounted(): void {
    this.#summary.alreadyImported = this.#lineNumber;
    if (this.#lineNumber !== this.#skipUntil) return;
    const ledger = this.#ledger!;
    if (this.#hash.copy().digest('hex') !== ledger.prefixSha256) {
      throw importErrors.import_source_changed(
        `${this.#name} starts like a log imported before ("${ledger.sourceName}", ${ledger.lines} lines counted), ` +
          'but those lines differ now: it was edited or replaced in place. Nothing of it was imported.',
      );
    }
    this.#position = { lines: this.#lineNumber, sha256: ledger.prefixSha256 };
  }

  /** Reads and classifies one new line into the pending chunk. */
  async #read(text: string, cut: boolean): Promise<void> {
    const chunk = this.#chunk;
    chunk.lines++;
    if (cut) return this.#malformed('line too long');
    if (text.trim() === '') return chunk.addBlank();
    // PostgreSQL cannot store NUL in text; one such row would fail the whole chunk.
    if (text.includes('\0')) return this.#malformed('contains a NUL character');
    const parsed = this.#options.parse(text);
    if ('malformed' in parsed) return this.#malformed(parsed.malformed);
    const { record, at } = parsed;
    if (record.timestamp !== undefined && (at < EARLIEST_MS || at > this.#now() + FUTURE_SLACK_MS)) {
      return this.#malformed(`implausible time ${new Date(at).toISOString()}`);
    }
    const { classification, projectId } = this.#options;
    const outcome = await classifyRecord(record, classification);
    if ('drop' in outcome) return chunk.addDropped(outcome.drop);
    // As ingest: humans and AI agents have visitors, humans may be referred by an assistant.
    let visitorId: number | null = null;
    let assistant: string | null = null;
    if (outcome.class !== 'bot') {
      const hasher = await this.#visitorIds.hasherAt(at);
      visitorId = hasher.id(projectId, outcome.class, record.ip, record.userAgent);
    }
    if (outcome.class === 'human') {
      const utmSource = utmSourceOf(record.url ?? record.path);
      assistant = classification.referrers.assistantOf(record.referrer, utmSource)?.name ?? null;
    }
    chunk.addView(outcome, record.userAgent, at, classification, record.accept, { visitorId, assistant });
  }

  #malformed(reason: string): void {
    const listed = this.#summary.malformedLines.length + this.#chunk.malformedLines.length;
    this.#chunk.addMalformed(this.#lineNumber, reason, listed < this.#malformedListed);
  }

  /** Commits the pending chunk with the ledger's advance, then counts its lines in the summary. */
  async #commit(): Promise<void> {
    const chunk = this.#chunk;
    const lineNumber = this.#lineNumber;
    // Nothing new, or a log shorter than what the ledger already counted of it.
    if (lineNumber === this.#position.lines || lineNumber <= this.#skipUntil) return;
    const to: LogPosition = { lines: lineNumber, sha256: this.#hash.copy().digest('hex') };
    if (this.#position.lines === 0 && chunk.recognised === 0) {
      throw importErrors.import_unrecognised(
        `Not one of the first ${chunk.lines} lines of ${this.#name} is a request in this format ` +
          `(${chunk.malformed} unreadable, ${chunk.lines - chunk.malformed - chunk.blank} without a page). ` +
          'Check --format, --preset and --map; nothing of this log was imported.',
      );
    }
    const head = {
      projectId: this.#options.projectId,
      fingerprint: this.#summary.fingerprint!,
      sourceName: this.#name,
    };
    await this.#options.sink.applyChunk(chunk.body(head, this.#position, to));
    this.#position = to;
    chunk.countInto(this.#summary, this.#malformedListed);
    this.#chunk = new PendingChunk();
    this.#progress();
  }

  #progress(): void {
    this.#options.onProgress?.({ lines: this.#lineNumber, bytesRead: this.#source.bytesRead() });
  }
}

const SOURCE_FAILURES = new Set<string>([
  importErrors.import_source_changed.code,
  importErrors.import_unrecognised.code,
  importErrors.import_conflict.code,
]);

/**
 * Failures of this one log (it changed, is not in the format, cannot be read or decompressed):
 * the other logs are still imported. Anything else (the project is gone, the database or the
 * server cannot be reached) stops the whole run.
 */
function isSourceFailure(error: unknown): error is { code: string; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return SOURCE_FAILURES.has(code) || /^(Z_|ERR_ZLIB|EIO$|EISDIR$|ENOENT$|EACCES$)/.test(code);
}

/** Every drop reason with its count in these summaries (zero included), for totals. */
export function totalDrops(summaries: readonly SourceSummary[]): Record<DropReason, number> {
  const totals = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  for (const s of summaries) for (const [r, n] of Object.entries(s.dropped)) totals[r as DropReason] += n!;
  return totals;
}

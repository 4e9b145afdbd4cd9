// Imports one log: reads it line by line, skips the lines the ledger already counted (checking
// that they are the same lines), reads and classifies the rest, and commits them in chunks, each
// chunk's rollup rows and the ledger's advance in one transaction. A crash loses at most the
// chunk in flight, and the next run starts exactly where the ledger stands.
import { createHash, type Hash } from 'node:crypto';
import { HOUR_MS, hourOf } from '../../../util/time.ts';
import type { ClassificationContext } from '../classification/context.ts';
import { classifyRecord } from '../classification/pipeline.ts';
import {
  type ClassifiedView,
  DROP_REASONS,
  type DropReason,
  type TrafficClass,
} from '../classification/types.ts';
import {
  type ChunkRow,
  type ChunkUnrecognized,
  EMPTY_SHA256,
  type ImportChunk,
  type LogPosition,
} from './chunk.ts';
import { importErrors } from './errors.ts';
import { type Line, readLineBatches } from './line-reader.ts';
import type { ParsedLine } from './parsed-line.ts';
import type { ImportSink, LedgerEntry } from './sink.ts';
import { displayName, type LogSource } from './source.ts';

/** Requests before this are taken as a misread time (the web did not exist). */
const EARLIEST_MS = Date.UTC(1991, 0, 1);
/** Tolerated clock skew of a log's writer ahead of this machine. */
const FUTURE_SLACK_MS = 24 * HOUR_MS;

export interface ChunkLimits {
  /** Lines per chunk at most: a crash re-reads at most this many. */
  lines: number;
  /** Distinct rollup rows per chunk at most. */
  rows: number;
  /** Estimated JSON size of a chunk at most (the control socket takes 1 MiB). */
  bytes: number;
}

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

interface PendingChunk {
  rows: Map<string, ChunkRow>;
  /** Per lower-case product and class: views of unknown automated-looking user agents. */
  unrecognized: Map<string, ChunkUnrecognized>;
  bytes: number;
  lines: number;
  accepted: number;
  dropped: number;
  malformed: number;
  /** Lines that were requests with a page (kept or dropped after the path step). */
  recognised: number;
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

function emptyChunk(): PendingChunk {
  return {
    rows: new Map(),
    unrecognized: new Map(),
    bytes: 2,
    lines: 0,
    accepted: 0,
    dropped: 0,
    malformed: 0,
    recognised: 0,
  };
}

/** The bytes a line adds to the prefix hash: the line and its "\n", or, for a cut line, its kept part and full length. */
function hashLine(hash: Hash, line: Line): void {
  hash.update(line.bytes);
  if (line.length > line.bytes.length) hash.update(`\0${line.length}`);
  if (line.terminated) hash.update('\n');
}

/** A view only the default rules classified, from a user agent the list does not know. */
function countUnrecognized(
  chunk: PendingChunk,
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
  const row = chunk.unrecognized.get(key);
  if (row !== undefined) {
    row.views++;
    if (at < row.firstSeen) row.firstSeen = at;
    if (at > row.lastSeen) row.lastSeen = at;
    return;
  }
  chunk.unrecognized.set(key, {
    product: agent.product,
    trafficClass: outcome.class,
    reason: agent.reason,
    example: agent.example,
    views: 1,
    firstSeen: at,
    lastSeen: at,
  });
  chunk.bytes += agent.example.length + agent.product.length + 160;
}

export async function importSource(source: LogSource, options: ImportOptions): Promise<SourceSummary> {
  const limits = options.chunkLimits ?? DEFAULT_CHUNK_LIMITS;
  const malformedListed = options.malformedListed ?? 20;
  const now = options.now ?? Date.now;
  const name = displayName(source.name);
  const summary = emptySummary(source.name === '-' ? '-' : source.name, 'empty');
  // Counts of this run's lines, made final chunk by chunk once committed.
  const pendingByClass: Record<TrafficClass, number> = { human: 0, ai: 0, bot: 0 };
  const pendingDropped: Partial<Record<DropReason, number>> = {};
  let pendingBlank = 0;
  const pendingMalformed: { line: number; reason: string }[] = [];

  const hash = createHash('sha256');
  let lineNumber = 0;
  let ledger: LedgerEntry | null = null;
  let skipUntil = 0;
  let position: LogPosition = { lines: 0, sha256: EMPTY_SHA256 };
  let chunk = emptyChunk();

  const commit = async () => {
    // Nothing new, or a log shorter than what the ledger already counted of it.
    if (lineNumber === position.lines || lineNumber <= skipUntil) return;
    const to: LogPosition = { lines: lineNumber, sha256: hash.copy().digest('hex') };
    if (position.lines === 0 && chunk.recognised === 0) {
      throw importErrors.import_unrecognised(
        `Not one of the first ${chunk.lines} lines of ${name} is a request in this format ` +
          `(${chunk.malformed} unreadable, ${chunk.lines - chunk.malformed - pendingBlank} without a page). ` +
          'Check --format, --preset and --map; nothing of this log was imported.',
      );
    }
    const body: ImportChunk = {
      projectId: options.projectId,
      fingerprint: summary.fingerprint!,
      sourceName: name,
      from: position,
      to,
      rows: [...chunk.rows.values()],
      ...(chunk.unrecognized.size > 0 ? { unrecognized: [...chunk.unrecognized.values()] } : {}),
      stats: { accepted: chunk.accepted, dropped: chunk.dropped, malformed: chunk.malformed },
    };
    await options.sink.applyChunk(body);
    position = to;
    // Committed: this chunk's lines now count in the summary.
    summary.newLines += chunk.lines;
    summary.accepted += chunk.accepted;
    summary.malformed += chunk.malformed;
    summary.blank += pendingBlank;
    for (const c of ['human', 'ai', 'bot'] as const) {
      summary.byClass[c] += pendingByClass[c];
      pendingByClass[c] = 0;
    }
    for (const [reason, count] of Object.entries(pendingDropped) as [DropReason, number][]) {
      summary.dropped[reason] = (summary.dropped[reason] ?? 0) + count;
      delete pendingDropped[reason];
    }
    for (const entry of pendingMalformed) {
      if (summary.malformedLines.length < malformedListed) summary.malformedLines.push(entry);
    }
    pendingMalformed.length = 0;
    pendingBlank = 0;
    chunk = emptyChunk();
    options.onProgress?.({ lines: lineNumber, bytesRead: source.bytesRead() });
  };

  const malformed = (reason: string) => {
    chunk.malformed++;
    if (summary.malformedLines.length + pendingMalformed.length < malformedListed)
      pendingMalformed.push({ line: lineNumber, reason });
  };

  const addLine = async (text: string, cut: boolean) => {
    chunk.lines++;
    if (cut) return malformed('line too long');
    if (text.trim() === '') {
      pendingBlank++;
      return;
    }
    // PostgreSQL cannot store NUL in text; one such row would fail the whole chunk.
    if (text.includes('\0')) return malformed('contains a NUL character');
    const parsed = options.parse(text);
    if ('malformed' in parsed) return malformed(parsed.malformed);
    const { record, at } = parsed;
    if (record.timestamp !== undefined && (at < EARLIEST_MS || at > now() + FUTURE_SLACK_MS)) {
      return malformed(`implausible time ${new Date(at).toISOString()}`);
    }
    const outcome = await classifyRecord(record, options.classification);
    if ('drop' in outcome) {
      chunk.dropped++;
      if (outcome.drop !== 'path_missing') chunk.recognised++;
      pendingDropped[outcome.drop] = (pendingDropped[outcome.drop] ?? 0) + 1;
      return;
    }
    chunk.recognised++;
    chunk.accepted++;
    pendingByClass[outcome.class]++;
    countUnrecognized(chunk, outcome, record.userAgent, at, options.classification);
    const hour = new Date(hourOf(at)).toISOString();
    const key = `${hour}\n${outcome.path}\n${outcome.class}\n${outcome.agent}\n${outcome.verification}`;
    const existing = chunk.rows.get(key);
    if (existing) existing.views++;
    else {
      chunk.rows.set(key, {
        hour,
        path: outcome.path,
        trafficClass: outcome.class,
        agent: outcome.agent,
        verification: outcome.verification,
        views: 1,
      });
      chunk.bytes += Buffer.byteLength(outcome.path) + outcome.agent.length + 120;
    }
  };

  try {
    for await (const batch of readLineBatches(source.stream as AsyncIterable<Buffer>)) {
      for (const line of batch) {
        if (!line.terminated && !source.lastLineComplete) {
          summary.heldBackLastLine = true;
          break;
        }
        lineNumber++;
        summary.lines = lineNumber;
        hashLine(hash, line);
        if (lineNumber === 1) {
          summary.fingerprint = hash.copy().digest('hex');
          [ledger = null] = await options.sink.readLedger(options.projectId, [summary.fingerprint]);
          skipUntil = ledger?.lines ?? 0;
        }
        if (lineNumber <= skipUntil) {
          summary.alreadyImported = lineNumber;
          if (lineNumber === skipUntil) {
            if (hash.copy().digest('hex') !== ledger!.prefixSha256) {
              throw importErrors.import_source_changed(
                `${name} starts like a log imported before ("${ledger!.sourceName}", ${ledger!.lines} lines counted), ` +
                  'but those lines differ now: it was edited or replaced in place. Nothing of it was imported.',
              );
            }
            position = { lines: lineNumber, sha256: ledger!.prefixSha256 };
          }
          continue;
        }
        let text = line.bytes.toString('utf8');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        await addLine(text, line.length > line.bytes.length);
        if (chunk.lines >= limits.lines || chunk.rows.size >= limits.rows || chunk.bytes >= limits.bytes) {
          await commit();
        }
      }
      options.onProgress?.({ lines: lineNumber, bytesRead: source.bytesRead() });
    }
    await commit();
  } catch (error) {
    source.stream.destroy();
    if (!isSourceFailure(error)) throw error;
    summary.status = 'failed';
    summary.error = { code: error.code, message: error.message };
    return summary;
  }
  if (lineNumber === 0) summary.status = 'empty';
  else if (summary.newLines === 0) summary.status = 'up_to_date';
  else summary.status = 'imported';
  return summary;
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

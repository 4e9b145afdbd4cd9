// One ingest request from parsed body to committed views: check each record, classify the good
// ones, sum the views per rollup key, and wait for the group commit. Returns the 202 answer.
// Common records take the fast path (common-record.ts); the rest are checked and classified by
// the general code (record-validation.ts, the classification pipeline), with the same results.

import { type IngestResult, MAX_RECORDS } from '../../../contract/index.ts';
import { hourNumberOf } from '../../../util/time.ts';
import type { ClassificationContext } from '../classification/context.ts';
import { mcpCallOutcome } from '../classification/mcp-call.ts';
import { classifyRecordNow } from '../classification/pipeline.ts';
import type { ClassificationOutcome, RequestRecord } from '../classification/types.ts';
import { userAgentProfilesOf } from '../classification/user-agent-profiles.ts';
import type { VisitorSalts } from '../store/index.ts';
import { type UnrecognizedAgentCounter, UnrecognizedTally } from '../unrecognized-agents.ts';
import { ingestCommonRecord } from './common-record.ts';
import { DeferredOutcomes } from './deferred-outcomes.ts';
import { ingestErrors } from './errors.ts';
import type { GroupCommitWriter, SubmitOutcome } from './group-commit.ts';
import { validateRecord } from './record-validation.ts';
import { type RecordExtras, RollupTally, reportOutcome } from './rollup-tally.ts';

/** What ingest asks of the group commit writer: all a stand-in for it (a bench's) need have. */
export type IngestWriter = Pick<GroupCommitWriter, 'committedVisitors' | 'submit'>;

export interface IngestDependencies {
  writer: IngestWriter;
  classification: ClassificationContext;
  /** Milliseconds since the epoch: the default timestamp and the future limit's base. */
  now: () => number;
  /** Where the unknown-agents report's counts go, once the batch is committed. */
  unrecognized?: UnrecognizedAgentCounter;
  /** The day's salt for visitor ids; without it no visitor ids are kept. */
  visitorSalts?: Pick<VisitorSalts, 'hasherAt'>;
}

/** What became of a batch's records, for the metrics: counts, never the records themselves. */
export interface RecordOutcomes {
  accepted: number;
  /** Well-formed records that are not page views, by drop reason. */
  dropped: Record<string, number>;
  rejected: number;
}

export function checkRecordCount(count: number): void {
  if (count > MAX_RECORDS) {
    throw ingestErrors.too_many_records(
      `A batch may hold at most ${MAX_RECORDS} records; this one has ${count}. Nothing was counted: split it into smaller batches.`,
    );
  }
}

/** The batch's Idempotency-Key and the hash of its records (http/idempotency.ts). */
export interface BatchKey {
  key: string;
  requestHash: string;
}

export interface IngestOutcome {
  result: IngestResult;
  /** 'duplicate': the key was already used, nothing was counted; the stored answer is the one to give. */
  submitted: SubmitOutcome | 'nothing_to_count';
}

/**
 * Counts a batch and waits for its group commit. Not async itself: the records are read by
 * countBatch, whose frame ends once they are summed, so nothing here keeps them while the batch
 * waits for its commit (an async function keeps its parameters until it returns, and records
 * kept for those milliseconds are copied by every scavenge meanwhile).
 */
export function ingestBatch(
  projectId: string,
  items: readonly unknown[],
  deps: IngestDependencies,
  batchKey: BatchKey | null = null,
): Promise<IngestOutcome> {
  return countBatch(projectId, items, deps).then((counted) =>
    commitBatch(projectId, counted, deps, batchKey),
  );
}

/** A batch's records summed: what commitBatch needs, and none of the records. */
interface CountedBatch {
  tally: RollupTally;
  unrecognized: UnrecognizedTally;
  receivedAt: number;
}

async function countBatch(
  projectId: string,
  items: readonly unknown[],
  deps: IngestDependencies,
): Promise<CountedBatch> {
  checkRecordCount(items.length);
  const receivedAt = deps.now();
  const hasher = deps.visitorSalts === undefined ? null : await deps.visitorSalts.hasherAt(receivedAt);
  const tally = new RollupTally(
    projectId,
    hasher,
    deps.classification.referrers,
    deps.writer.committedVisitors,
  );
  const profiles = userAgentProfilesOf(deps.classification);
  const unrecognized = new UnrecognizedTally();
  // Set at the first record that waits on a key directory: from there on, outcomes are held
  // back so rows are still summed in batch order.
  let deferred: DeferredOutcomes | null = null;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === undefined && !(index in items)) continue; // a hole in a sparse array: no record
    const sink = deferred ?? tally;
    if (ingestCommonRecord(item, index, receivedAt, profiles, sink, unrecognized)) continue;
    const checked = validateRecord(item, receivedAt);
    if (!checked.ok) {
      tally.reject(index, checked.code, checked.message);
      continue;
    }
    const { record, mcp } = checked;
    const extras: RecordExtras = { format: checked.format, accept: record.accept, mcp };
    let outcome = classifyRecordNow(record, deps.classification);
    if (mcp !== null) {
      const { userAgent } = record;
      outcome =
        outcome instanceof Promise
          ? outcome.then((settled) => mcpCallOutcome(settled, userAgent, deps.classification))
          : mcpCallOutcome(outcome, userAgent, deps.classification);
    }
    if (outcome instanceof Promise) {
      deferred ??= new DeferredOutcomes();
      deferred.wait(index, hourNumberOf(checked.atMs), outcome, ...senderOf(record), extras);
    } else {
      reportOutcome(sink, index, hourNumberOf(checked.atMs), outcome, ...senderOf(record), extras);
      countUnrecognized(unrecognized, outcome, record.userAgent, deps.classification);
    }
  }
  if (deferred !== null) await deferred.replayInto(tally);
  return { tally, unrecognized, receivedAt };
}

async function commitBatch(
  projectId: string,
  { tally, unrecognized, receivedAt }: CountedBatch,
  deps: IngestDependencies,
  batchKey: BatchKey | null,
): Promise<IngestOutcome> {
  const { accepted, rejected, sums } = tally;
  rejected.sort((a, b) => a.index - b.index);
  const result = { accepted, dropped: tally.droppedCounts(), rejected };
  // A batch that counts nothing stores no key either: sent again, it is answered the same way.
  if (accepted === 0) return { result, submitted: 'nothing_to_count' };
  const claim = batchKey === null ? null : { projectId, ...batchKey, result };
  const submitted = await deps.writer.submit(sums, claim);
  if (submitted !== 'duplicate') deps.unrecognized?.add(projectId, unrecognized, receivedAt);
  return { result, submitted };
}

/** What a view's visitor id and AI referral are made of: address, user agent, referrer, target. */
function senderOf(
  record: RequestRecord,
): [string | undefined, string | undefined, string | undefined, string | undefined] {
  // The target as the fast path takes it: a non-blank path, else the url.
  const target = record.path?.trim() ? record.path : record.url;
  return [record.ip, record.userAgent, record.referrer, target];
}

/** A record of the general path: counted when only the default rules decided its class. */
function countUnrecognized(
  tally: UnrecognizedTally,
  outcome: ClassificationOutcome,
  userAgent: string | undefined,
  classification: ClassificationContext,
): void {
  if ('drop' in outcome || (outcome.evidence.rule !== 'bot' && outcome.evidence.rule !== 'human_default'))
    return;
  const agent = classification.userAgents.classify(userAgent).unrecognized;
  if (agent !== null) tally.add(agent, outcome.class);
}

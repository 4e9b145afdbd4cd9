// One ingest request from parsed body to committed views: check each record, classify the good
// ones, sum the views per rollup key, and wait for the group commit. Returns the 202 answer.

import type { Queryable } from '../../../db/database.ts';
import { httpErrors } from '../../../http/errors.ts';
import type { ClassificationContext } from '../classification/context.ts';
import { classifyBatch } from '../classification/pipeline.ts';
import type { DropReason, RequestRecord } from '../classification/types.ts';
import type { PageViewCount } from '../rollups.ts';
import { ingestErrors } from './errors.ts';
import type { GroupCommitWriter, SubmitOutcome } from './group-commit.ts';
import { selectIngestBatch } from './queries.ts';
import { validateRecord } from './record-validation.ts';
import { type IngestResult, MAX_RECORDS, type Rejection } from './schemas.ts';

export interface IngestDependencies {
  writer: GroupCommitWriter;
  classification: ClassificationContext;
  /** Milliseconds since the epoch: the default timestamp and the future limit's base. */
  now: () => number;
}

/** What became of a batch's records, for the metrics: counts, never the records themselves. */
export interface RecordOutcomes {
  accepted: number;
  /** Well-formed records that are not page views, by drop reason. */
  dropped: Record<string, number>;
  rejected: number;
}

const HOUR_MS = 3_600_000;

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

export async function ingestBatch(
  projectId: string,
  items: readonly unknown[],
  deps: IngestDependencies,
  batchKey: BatchKey | null = null,
): Promise<IngestOutcome> {
  checkRecordCount(items.length);
  const receivedAt = deps.now();
  const rejected: Rejection[] = [];
  const records: RequestRecord[] = [];
  const recordIndex: number[] = [];
  const hours: number[] = [];
  items.forEach((item, index) => {
    const checked = validateRecord(item, receivedAt);
    if (!checked.ok) {
      rejected.push({ index, code: checked.code, message: checked.message });
      return;
    }
    records.push(checked.record);
    recordIndex.push(index);
    hours.push(Math.floor(checked.atMs / HOUR_MS) * HOUR_MS);
  });

  const { views, dropped } = await classifyBatch(records, deps.classification);

  // One row per rollup key: a batch of 1,000 views of a few pages becomes a handful of rows.
  const rows = new Map<string, PageViewCount>();
  let accepted = 0;
  for (const { index, view } of views) {
    // Defence in depth: NUL is refused on input, but a NUL reaching the commit would fail the
    // whole group, other clients' views included.
    if (view.path.includes('\0') || view.agent.includes('\0')) {
      rejected.push({
        index: recordIndex[index]!,
        code: 'invalid_field',
        message: 'The record leads to a path or agent name holding the NUL character.',
      });
      continue;
    }
    accepted++;
    const hour = hours[index]!;
    const key = `${hour}\0${view.class}\0${view.agent}\0${view.verification}\0${view.path}`;
    const row = rows.get(key);
    if (row) row.views++;
    else {
      rows.set(key, {
        projectId,
        hour: new Date(hour),
        path: view.path,
        trafficClass: view.class,
        agent: view.agent,
        verification: view.verification,
        views: 1,
      });
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  const result = { accepted, dropped: countedDrops(dropped), rejected };
  // A batch that counts nothing stores no key either: sent again, it is answered the same way.
  if (accepted === 0) return { result, submitted: 'nothing_to_count' };
  const claim = batchKey === null ? null : { projectId, ...batchKey, result };
  return { result, submitted: await deps.writer.submit([...rows.values()], accepted, claim) };
}

function countedDrops(dropped: Record<DropReason, number>): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const [reason, count] of Object.entries(dropped)) if (count > 0) counted[reason] = count;
  return counted;
}

/**
 * The answer stored under the batch's key within 24 hours, for a retry; null when the key is new.
 * The same key with other records is refused: it would otherwise answer for a batch never counted.
 */
export async function storedAnswer(
  db: Queryable,
  projectId: string,
  batchKey: BatchKey,
): Promise<IngestResult | null> {
  const stored = await selectIngestBatch(db, projectId, batchKey.key);
  if (stored === null) return null;
  if (stored.request_hash !== batchKey.requestHash) {
    throw httpErrors.idempotency_key_reused(
      'This Idempotency-Key was already used with other records; use a new key for a new batch.',
    );
  }
  return stored.result;
}

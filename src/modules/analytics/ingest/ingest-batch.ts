// One ingest request from parsed body to committed views: check each record, classify the good
// ones, sum the views per rollup key, and wait for the group commit. Returns the 202 answer.

import type { ClassificationContext } from '../classification/context.ts';
import { classifyBatch } from '../classification/pipeline.ts';
import type { DropReason, RequestRecord } from '../classification/types.ts';
import type { PageViewCount } from '../rollups.ts';
import { ingestErrors } from './errors.ts';
import type { GroupCommitWriter } from './group-commit.ts';
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

export async function ingestBatch(
  projectId: string,
  items: readonly unknown[],
  deps: IngestDependencies,
): Promise<IngestResult> {
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
  if (accepted > 0) await deps.writer.submit([...rows.values()], accepted);
  rejected.sort((a, b) => a.index - b.index);
  return { accepted, dropped: countedDrops(dropped), rejected };
}

function countedDrops(dropped: Record<DropReason, number>): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const [reason, count] of Object.entries(dropped)) if (count > 0) counted[reason] = count;
  return counted;
}

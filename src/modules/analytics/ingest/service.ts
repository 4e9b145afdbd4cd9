// One ingest request once its body is parsed: a batch sent again under its Idempotency-Key gets
// the answer stored the first time; any other batch is counted (ingest-batch.ts), its answer
// stored under its key in the same commit, and its outcome told to the metrics.
import type { IngestResult } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import { requestHash } from '../../../util/request-hash.ts';
import { ingestErrors } from './errors.ts';
import { type BatchKey, type IngestDependencies, ingestBatch, type RecordOutcomes } from './ingest-batch.ts';
import { selectIngestBatch } from './queries.ts';

export interface IngestServiceDependencies extends IngestDependencies {
  db: Queryable;
  /** Told the outcome counts of every batch counted (the metrics); not of replays. */
  onRecords?: (outcomes: RecordOutcomes) => void;
}

export interface IngestRequest {
  projectId: string;
  /**
   * The batch's records as parsed, each still unchecked. Handed over: ingestEvents takes them
   * (leaving none here) so that nothing keeps them while the batch waits for its commit.
   */
  items: readonly unknown[];
  /** The request's Idempotency-Key, already checked; null when it has none. */
  idempotencyKey: string | null;
}

export interface IngestAnswer {
  result: IngestResult;
  /** The answer stored for an earlier request with the same key: nothing was counted now. */
  replayed: boolean;
}

export async function ingestEvents(
  deps: IngestServiceDependencies,
  request: IngestRequest,
): Promise<IngestAnswer> {
  // No local keeps the records: an async function's variables live until it returns, and
  // records kept while the batch waits for its commit are copied by every scavenge meanwhile.
  const { projectId, idempotencyKey } = request;
  const batchKey: BatchKey | null =
    idempotencyKey === null ? null : { key: idempotencyKey, requestHash: requestHash(request.items) };
  if (batchKey !== null) {
    const stored = await storedAnswer(deps.db, projectId, batchKey);
    if (stored !== null) return { result: stored, replayed: true };
  }
  const { result, submitted } = await ingestBatch(projectId, takeItems(request), deps, batchKey);
  if (submitted === 'duplicate') {
    // Another request with this key was committed first (sent while this one waited).
    const stored = await storedAnswer(deps.db, projectId, batchKey!);
    if (stored !== null) return { result: stored, replayed: true };
    throw ingestErrors.ingest_unavailable(
      'A batch with this Idempotency-Key was counted, but its answer could not be read; send the batch again to get it.',
      { headers: { 'retry-after': '1' } },
    );
  }
  deps.onRecords?.({ ...result, rejected: result.rejected.length });
  return { result, replayed: false };
}

/** The request's records, taken out of it. */
function takeItems(request: IngestRequest): readonly unknown[] {
  const { items } = request;
  request.items = [];
  return items;
}

/**
 * The answer stored under the batch's key within 24 hours, for a retry; null when the key is new.
 * The same key with other records is refused: it would otherwise answer for a batch never counted.
 */
async function storedAnswer(
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

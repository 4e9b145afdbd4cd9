// ingestBatch's dependencies for benches that measure it without a database: a stand-in for the
// group commit writer whose submit resolves at once, visitor ids made as the server makes them (a
// salt of the day, SHA-256, remembered per sender), and the classification context. The stand-in
// is typed against what ingest asks of the writer (IngestWriter), so tsc fails here when that
// changes, rather than a bench at run time.
//
// The classes are handed in: bench/ingest-cpu-ab.ts builds each side of its two checkouts of
// their own, so this file imports nothing but types from this one (checkoutIngest loads them).
import { randomBytes } from 'node:crypto';
import type { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import type { IngestDependencies, IngestWriter } from '../../src/modules/analytics/ingest/ingest-batch.ts';
import type { CommittedVisitors, ViewSums } from '../../src/modules/analytics/store/index.ts';
import type { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';

/** What the stand-in is built of, from the checkout measured. */
export interface IngestParts {
  createClassificationContext: typeof createClassificationContext;
  CommittedVisitors: typeof CommittedVisitors;
  VisitorHasher: typeof VisitorHasher;
}

export interface StandInOptions {
  /** Told each request's sums, as ingestBatch submits them. */
  onSubmit?: (sums: ViewSums) => void;
  /**
   * True (the default): each submit commits its visitor ids to the writer's memo, as the real
   * writer does once a group commits, so the memo's lookups are part of ingest's CPU and later
   * requests leave those ids out. False: nothing is ever committed to it, no id is left out.
   */
  commitVisitors?: boolean;
  /**
   * Requests per group commit (1 by default). Above 1, the stand-in sums each group's requests as
   * the real writer does before it stages them (ViewSums.addSums into the first request's sums,
   * then the memo's unseen() over the group's visitor ids), so that merge is part of the CPU
   * measured: bench/ingest.ts sees about 11 requests a group on PostgreSQL, 16 on PGlite.
   */
  groupRequests?: number;
}

export function standInIngestDeps(parts: IngestParts, options: StandInOptions = {}): IngestDependencies {
  const { onSubmit, commitVisitors = true, groupRequests = 1 } = options;
  const committedVisitors = new parts.CommittedVisitors();
  let group: ViewSums[] = [];
  const writer: IngestWriter = {
    committedVisitors,
    async submit(sums) {
      onSubmit?.(sums);
      group.push(sums);
      if (group.length < groupRequests) return 'committed';
      const summed = group[0]!;
      for (let i = 1; i < group.length; i++) summed.addSums(group[i]!);
      group = [];
      const fresh = committedVisitors.unseen(summed.visitors);
      if (commitVisitors) committedVisitors.committed(fresh);
      return 'committed';
    },
  };
  const hasher = new parts.VisitorHasher(randomBytes(32));
  return {
    writer,
    classification: parts.createClassificationContext(),
    now: Date.now,
    visitorSalts: { hasherAt: async () => hasher },
  };
}

/**
 * ingestBatch and its stand-in dependencies, both from the checkout at `checkout` (its own module
 * instances, caches and memos). Imported by path, untyped: the stand-in is checked against this
 * checkout's ingest only.
 */
export async function checkoutIngest(
  checkout: string,
  options: StandInOptions = {},
): Promise<{
  ingestBatch: (projectId: string, items: unknown[], deps: IngestDependencies) => Promise<unknown>;
  deps: IngestDependencies;
}> {
  const analytics = `${checkout}/src/modules/analytics`;
  const { ingestBatch } = await import(`${analytics}/ingest/ingest-batch.ts`);
  const deps = standInIngestDeps(
    {
      createClassificationContext: (await import(`${analytics}/classification/context.ts`))
        .createClassificationContext,
      CommittedVisitors: (await import(`${analytics}/store/index.ts`)).CommittedVisitors,
      VisitorHasher: (await import(`${analytics}/store/visitor-ids.ts`)).VisitorHasher,
    },
    options,
  );
  return { ingestBatch, deps };
}

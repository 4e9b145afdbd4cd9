// A batch waiting for its group commit keeps none of its parsed records: about 15 requests wait
// for each commit, and records kept that long are copied by every scavenge meanwhile
// (docs/ingestion.md, seventh round). ingestEvents takes the records out of its request, and
// ingestBatch lets go of them once they are summed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { IngestWriter } from '../../src/modules/analytics/ingest/ingest-batch.ts';
import { ingestEvents } from '../../src/modules/analytics/ingest/service.ts';
import { CommittedVisitors } from '../../src/modules/analytics/store/index.ts';
import { testContext } from './fixtures/context.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a batch waiting for its commit keeps none of its records', async () => {
  let release = () => {};
  const committed = new Promise<void>((resolve) => {
    release = resolve;
  });
  let waiting = false;
  const writer: IngestWriter = {
    committedVisitors: new CommittedVisitors(),
    async submit() {
      waiting = true;
      await committed;
      return 'committed' as const;
    },
  };
  let items: unknown[] | null = Array.from({ length: 50 }, (_, i) => ({
    path: `/guide/${i}`,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  }));
  const records = new WeakRef(items);
  const batch = { projectId: 'prj_test', items, idempotencyKey: null };
  items = null;
  const deps = { writer, classification: testContext(), now: Date.now, db: null as never };
  const answering = ingestEvents(deps, batch);
  while (!waiting) await turn();
  for (let i = 0; i < 3; i++) {
    gc();
    await turn();
  }
  assert.equal(records.deref(), undefined, 'the records are still kept while the batch waits');
  release();
  const answer = await answering;
  assert.equal(answer.result.accepted, 50);
});

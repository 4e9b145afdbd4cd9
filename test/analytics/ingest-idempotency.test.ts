// Idempotency-Key on POST /v1/analytics/{projectId}/events, on both engines through the real app:
// a retried batch is answered with the first answer and counted once, also when the retry arrives
// while the first is still waiting for its commit; a key reused with other records is refused; a
// key older than 24 hours counts again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/context.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { ingestTestApp, postNdjson, postRecords, viewsReport } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const human = (path: string) => ({ path, userAgent: CHROME });
const BATCH = [human('/guide'), human('/guide'), human('/api'), human('/style.css'), { path: 42 }];

await forEachBackend('ingest Idempotency-Key', ({ db }) => {
  let app: App;
  before(async () => {
    app = await ingestTestApp(db());
  });
  after(() => app.close());

  const post = (projectId: string, key: string, records: unknown[], idempotencyKey?: string) =>
    postRecords(
      app,
      projectId,
      key,
      records,
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    );

  test('a retry with the same key and records gets the first answer, and counts nothing more', async () => {
    const seeded = await seedProject(db());
    const first = await post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-0001');
    assert.equal(first.statusCode, 202, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-0001');
    assert.equal(again.statusCode, 202, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.equal(first.json().accepted, 3);
    // The same records as NDJSON are the same batch: the key is bound to the records, not the bytes.
    const ndjson = await postNdjson(
      app,
      seeded.project.id,
      seeded.ingestKey,
      BATCH.map((r) => JSON.stringify(r)).join('\n'),
      { 'idempotency-key': 'batch-0001' },
    );
    assert.equal(ndjson.statusCode, 202, ndjson.body);
    assert.equal(ndjson.headers['idempotent-replayed'], 'true');
    assert.deepEqual(ndjson.json(), first.json());
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    // Counted once, however it was sent.
    assert.deepEqual(report.totals, { human: 3, ai: 0, total: 3 });
  });

  test('retries sent while the first waits for its commit are counted once', async () => {
    const seeded = await seedProject(db());
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-together')),
    );
    for (const answer of answers) assert.equal(answer.statusCode, 202, answer.body);
    assert.equal(answers.filter((a) => a.headers['idempotent-replayed'] === undefined).length, 1);
    for (const answer of answers) assert.deepEqual(answer.json(), answers[0]!.json());
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.totals, { human: 3, ai: 0, total: 3 });
  });

  test('the same key with other records is refused with 422 and counts nothing', async () => {
    const seeded = await seedProject(db());
    assert.equal((await post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-x')).statusCode, 202);
    const other = await post(seeded.project.id, seeded.ingestKey, [human('/other')], 'batch-x');
    assert.equal(other.statusCode, 422);
    assert.equal(other.json().code, 'idempotency_key_reused');
    assert.match(other.json().error, /Idempotency-Key/);
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.totals, { human: 3, ai: 0, total: 3 });
    // Keys belong to their project: another project may use the same one.
    const elsewhere = await seedProject(db());
    const theirs = await post(elsewhere.project.id, elsewhere.ingestKey, [human('/other')], 'batch-x');
    assert.equal(theirs.statusCode, 202);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
  });

  test('a key older than 24 hours is free again: the batch is counted anew', async () => {
    const seeded = await seedProject(db());
    assert.equal((await post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-old')).statusCode, 202);
    await db().query(
      `UPDATE ingest_batches SET created_at = now() - interval '25 hours' WHERE project_id = $1`,
      [seeded.project.id],
    );
    const later = await post(seeded.project.id, seeded.ingestKey, BATCH, 'batch-old');
    assert.equal(later.statusCode, 202);
    assert.equal(later.headers['idempotent-replayed'], undefined);
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.totals, { human: 6, ai: 0, total: 6 });
  });

  test('a malformed key is a 400 naming the header; a batch that counts nothing stores no key', async () => {
    const seeded = await seedProject(db());
    const bad = await post(seeded.project.id, seeded.ingestKey, BATCH, 'has space');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_header');
    assert.match(bad.json().error, /Idempotency-Key/);
    const nothing = await post(
      seeded.project.id,
      seeded.ingestKey,
      [human('/a.css'), { path: 1 }],
      'only-drops',
    );
    assert.equal(nothing.statusCode, 202);
    const rows = await db().query('SELECT key FROM ingest_batches WHERE project_id = $1', [
      seeded.project.id,
    ]);
    assert.deepEqual(rows, []);
    const report = await viewsReport(app, seeded.project.id, seeded.readKey);
    assert.deepEqual(report.totals, { human: 0, ai: 0, total: 0 });
  });
});

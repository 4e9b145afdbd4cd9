// A group commit without Idempotency-Keys stages its views and visitor ids in ONE statement,
// without BEGIN and COMMIT; a group with keys keeps its transaction (the claims and the staging
// commit together). On both engines: what each kind of group sends, and that a staging statement
// failing inside the database writes nothing of the group (no views, no visitor ids) and answers
// every request with a refusal, never an acknowledgement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { GroupCommitWriter } from '../../src/modules/analytics/ingest/group-commit.ts';
import { ViewSums } from '../../src/modules/analytics/store/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

/** The writer's merger never runs on its own: only the group commits write. */
const NO_BACKGROUND_MERGE = { merger: { delayMs: 600_000 } };
const HOUR = Math.floor(Date.now() / 3_600_000) * 3600;

function views(projectId: string, paths: string[], firstVisitor = 1): ViewSums {
  const sums = new ViewSums();
  paths.forEach((path, i) => {
    sums.add(projectId, HOUR, 'human', '', 'none', path, 1);
    sums.visitors.add(projectId, HOUR, 'human', path, firstVisitor + i);
  });
  return sums;
}

/** The real database, recording its transactions and the statements sent outside them. */
function recordingDatabase(real: Database) {
  const log: string[] = [];
  const db: Database = {
    kind: real.kind,
    query: (sql, params) => {
      log.push(`query ${sql.replace(/\s+/g, ' ').trim().slice(0, 60)}`);
      return real.query(sql, params);
    },
    exec: (sql) => real.exec(sql),
    listen: (channel, onNotify) => real.listen(channel, onNotify),
    close: () => real.close(),
    transaction: (fn) => {
      log.push('transaction');
      return real.transaction(fn);
    },
  };
  return { db, log };
}

await forEachBackend('the group commit in one statement', ({ db }) => {
  const count = async (table: string) =>
    Number((await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);

  test('a group without keys sends its staging statement alone; a group with keys keeps its transaction', async () => {
    // Nothing staged: the writer's first merge finds nothing and opens no transaction.
    await db().query('DELETE FROM page_views_staged');
    await db().query('DELETE FROM visitor_ids_staged');
    const seeded = await seedProject(db());
    const recording = recordingDatabase(db());
    const writer = new GroupCommitWriter(recording.db, NO_BACKGROUND_MERGE);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      recording.log.length = 0;
      assert.equal(await writer.submit(views(seeded.project.id, ['/a', '/b'])), 'committed');
      assert.deepEqual(recording.log, [
        'query WITH visitor_ids AS ( INSERT INTO visitor_ids_staged (ids) SELECT',
      ]);
      assert.equal(await count('page_views_staged'), 1);
      assert.equal(await count('visitor_ids_staged'), 1);

      recording.log.length = 0;
      const claim = {
        projectId: seeded.project.id,
        key: 'k-1',
        requestHash: 'h',
        result: { accepted: 1, dropped: {}, rejected: [] },
      };
      assert.equal(await writer.submit(views(seeded.project.id, ['/c'], 10), claim), 'committed');
      assert.deepEqual(recording.log, ['transaction']);
      assert.equal(await count('page_views_staged'), 2);
      assert.equal(await count('visitor_ids_staged'), 2);
    } finally {
      await writer.close();
    }
  });

  test('a staging statement that fails in the database stages nothing of its group: no views, no visitor ids', async () => {
    await db().query('DELETE FROM page_views_staged');
    await db().query('DELETE FROM visitor_ids_staged');
    const seeded = await seedProject(db());
    const writer = new GroupCommitWriter(db(), {
      ...NO_BACKGROUND_MERGE,
      windowMs: 600_000,
      maxGroupViews: 3,
    });
    // The views' insert fails after the visitor ids' insert (the CTE) has run in the statement.
    await db().query(
      'ALTER TABLE page_views_staged ADD CONSTRAINT refuse_every_row CHECK (views < 0) NOT VALID',
    );
    try {
      const failed = await Promise.allSettled([
        writer.submit(views(seeded.project.id, ['/x', '/y'])),
        writer.submit(views(seeded.project.id, ['/z'], 5)),
      ]);
      for (const outcome of failed) {
        assert.equal(outcome.status, 'rejected');
        assert.match(String((outcome as PromiseRejectedResult).reason), /could not be committed/);
      }
      assert.equal(writer.stats.failedCommits, 1);
      assert.equal(await count('page_views_staged'), 0);
      assert.equal(await count('visitor_ids_staged'), 0);

      await db().query('ALTER TABLE page_views_staged DROP CONSTRAINT refuse_every_row');
      // The retry stages the ids again: the failed group's were never remembered as committed.
      assert.equal(await writer.submit(views(seeded.project.id, ['/x', '/y'])), 'committed');
      assert.equal(await count('page_views_staged'), 1);
      assert.equal(await count('visitor_ids_staged'), 1);
    } finally {
      await db().query('ALTER TABLE page_views_staged DROP CONSTRAINT IF EXISTS refuse_every_row');
      await writer.close();
    }
  });
});

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

/**
 * The real database, recording the staging statements (by the table they start with) sent on
 * their own ("alone") or inside a transaction ("in a transaction"); the merger's statements are
 * left out.
 */
function recordingDatabase(real: Database) {
  const log: string[] = [];
  const staging = (sql: string) => /^\s*WITH visitor_ids AS \(\s*INSERT INTO visitor_ids_staged/.test(sql);
  const db: Database = {
    kind: real.kind,
    query: (sql, params) => {
      if (staging(sql)) log.push('alone');
      return real.query(sql, params);
    },
    exec: (sql) => real.exec(sql),
    listen: (channel, onNotify) => real.listen(channel, onNotify),
    close: () => real.close(),
    transaction: (fn) =>
      real.transaction((tx) =>
        fn({
          query: (sql, params) => {
            if (staging(sql)) log.push('in a transaction');
            return tx.query(sql, params);
          },
          exec: (sql) => tx.exec(sql),
        }),
      ),
  };
  return { db, log };
}

await forEachBackend('the group commit in one statement', ({ db }) => {
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await db().query<{ n: number }>(sql, params))[0]!.n);
  /** The project's views and visitor ids, staged or already merged and folded (the writer's merger may run). */
  const written = async (projectId: string) => ({
    views:
      (await count('SELECT coalesce(sum(views), 0)::int AS n FROM page_views_staged')) +
      (await count('SELECT coalesce(sum(views), 0)::int AS n FROM page_views_hourly WHERE project_id = $1', [
        projectId,
      ])),
    visitors:
      (await count('SELECT count(*)::int AS n FROM visitor_ids_staged')) +
      (await count('SELECT count(*)::int AS n FROM visitor_sketches WHERE project_id = $1', [projectId])),
  });

  test('a group without keys sends its staging statement alone; a group with keys keeps its transaction', async () => {
    await db().query('DELETE FROM page_views_staged');
    await db().query('DELETE FROM visitor_ids_staged');
    const seeded = await seedProject(db());
    const recording = recordingDatabase(db());
    const writer = new GroupCommitWriter(recording.db, NO_BACKGROUND_MERGE);
    try {
      assert.equal(await writer.submit(views(seeded.project.id, ['/a', '/b'])), 'committed');
      assert.deepEqual(recording.log, ['alone']);

      recording.log.length = 0;
      const claim = {
        projectId: seeded.project.id,
        key: 'k-1',
        requestHash: 'h',
        result: { accepted: 1, dropped: {}, rejected: [] },
      };
      assert.equal(await writer.submit(views(seeded.project.id, ['/c'], 10), claim), 'committed');
      assert.deepEqual(recording.log, ['in a transaction']);
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
      assert.deepEqual(await written(seeded.project.id), { views: 0, visitors: 0 });

      await db().query('ALTER TABLE page_views_staged DROP CONSTRAINT refuse_every_row');
      // The retry stages the ids again: the failed group's were never remembered as committed.
      assert.equal(await writer.submit(views(seeded.project.id, ['/x', '/y', '/z'])), 'committed');
      await writer.close();
      const after = await written(seeded.project.id);
      assert.equal(after.views, 3);
      assert.ok(after.visitors > 0, "the retry's visitor ids were staged and folded");
    } finally {
      await db().query('ALTER TABLE page_views_staged DROP CONSTRAINT IF EXISTS refuse_every_row');
      await writer.close();
    }
  });
});

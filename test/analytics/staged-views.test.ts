// Staged page views (migration 0008): an ingest group commit appends its views to
// page_views_staged and answers; the merge moves them into the rollups exactly once. On both
// engines, through the real app and the real merge: reads see acknowledged views at once, the
// background merger gets there without a read, a failed merge loses nothing, concurrent merges
// count each view once, a deleted project's staged views do not hold back the others, a new
// writer merges what a killed one left, and a merger that falls behind turns clients away.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { GroupCommitWriter } from '../../src/modules/analytics/ingest/group-commit.ts';
import { type PageViewCount, stageViews, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { controllableDatabase, ingestTestApp, postRecords, until, viewsReport } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const human = (path: string) => ({ path, userAgent: CHROME });
/** A writer whose own merger would wait ten minutes: only reads (or the test) merge. */
const NO_BACKGROUND_MERGE = { merger: { delayMs: 600_000 } };

await forEachBackend('staged page views', ({ db, backend }) => {
  const rolledUp = async (projectId: string) =>
    Number(
      (
        await db().query<{ views: number }>(
          'SELECT coalesce(sum(views), 0)::bigint AS views FROM page_views_hourly WHERE project_id = $1',
          [projectId],
        )
      )[0]!.views,
    );
  const stagedViews = async () =>
    Number(
      (
        await db().query<{ views: number }>(
          'SELECT coalesce(sum(views), 0)::bigint AS views FROM page_views_staged',
        )
      )[0]!.views,
    );
  /** Stages rows as a group commit would, in a transaction of its own. */
  const stage = (target: Database, rows: PageViewCount[]) =>
    target.transaction((tx) => {
      const sums = new ViewSums();
      rows.forEach((row, index) => {
        sums.addRow(row, index);
      });
      return stageViews(tx, sums);
    });
  const viewRow = (projectId: string, path: string, views = 1): PageViewCount => ({
    projectId,
    hour: new Date(Date.UTC(2026, 10, 20, 9)),
    path,
    trafficClass: 'human',
    views,
  });

  test('an acknowledged batch is staged, and the export merges it before reading: counted once', async () => {
    const writer = new GroupCommitWriter(db(), NO_BACKGROUND_MERGE);
    const app = await ingestTestApp(db(), { writer });
    const seeded = await seedProject(db());
    try {
      const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [
        human('/a'),
        human('/a'),
        human('/b'),
      ]);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(await stagedViews(), 3, 'the three views wait in page_views_staged');
      assert.equal(await rolledUp(seeded.project.id), 0, 'and are not in the rollups yet');
      assert.equal(writer.stats.stagedViews, 3);

      const report = await viewsReport(app, seeded.project.id, seeded.readKey);
      assert.deepEqual(report.totals, { human: 3, ai: 0, total: 3 });
      assert.equal(await stagedViews(), 0, 'the read merged them');
      assert.equal(await rolledUp(seeded.project.id), 3);
      // Read again: nothing is merged twice.
      assert.deepEqual((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.total, 3);
    } finally {
      await app.close();
    }
    // The writer's merger still held those views' sums: merging at close finds them gone and
    // does not count them again.
    assert.equal(await rolledUp(seeded.project.id), 3);
    assert.equal(writer.stats.stagedViews, 0);
  });

  test('the writer merges in the background a moment after a commit, without any read', async () => {
    const writer = new GroupCommitWriter(db(), { merger: { delayMs: 20 } });
    const app = await ingestTestApp(db(), { writer });
    try {
      const seeded = await seedProject(db());
      const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [human('/bg'), human('/bg')]);
      assert.equal(res.statusCode, 202, res.body);
      await until(() => writer.stats.stagedViews === 0, 'the merger to report the views merged');
      assert.equal(await rolledUp(seeded.project.id), 2);
    } finally {
      await app.close();
    }
  });

  test('a backlog past mergeAtViews is merged at once, whatever the wait', async () => {
    // Ten minutes' wait, but four views staged reach the threshold of three.
    const writer = new GroupCommitWriter(db(), { merger: { delayMs: 600_000, mergeAtViews: 3 } });
    const app = await ingestTestApp(db(), { writer });
    try {
      const seeded = await seedProject(db());
      const res = await postRecords(
        app,
        seeded.project.id,
        seeded.ingestKey,
        Array.from({ length: 4 }, () => human('/soon')),
      );
      assert.equal(res.statusCode, 202, res.body);
      await until(() => writer.stats.stagedViews === 0, 'the merger to merge past the threshold');
      assert.equal(await rolledUp(seeded.project.id), 4);
    } finally {
      await app.close();
    }
  });

  test("the merger vacuums ingest's tables every vacuumEvery merges, and a failed vacuum loses nothing", async () => {
    // PGlite has no autovacuum: without this its staged tables would keep every payload ever
    // staged (rollup-vacuum.ts). Run on both engines, so the statement is valid on both.
    const vacuums: string[] = [];
    let failVacuum = false;
    const real = db();
    const recording: Database = {
      kind: real.kind,
      query: (sql, params) => real.query(sql, params),
      transaction: (fn) => real.transaction(fn),
      listen: (channel, onNotify, options) => real.listen(channel, onNotify, options),
      close: () => real.close(),
      async exec(sql) {
        if (sql.startsWith('VACUUM')) {
          vacuums.push(sql);
          if (failVacuum) throw new Error('injected vacuum failure');
        }
        await real.exec(sql);
      },
    };
    const errors: string[] = [];
    const log = { error: (_details: object, message: string) => void errors.push(message) };
    const writer = new GroupCommitWriter(recording, { merger: { delayMs: 10, vacuumEvery: 2 } }, log);
    const app = await ingestTestApp(recording, { writer });
    try {
      const seeded = await seedProject(real);
      const post = async (path: string) => {
        const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [human(path)]);
        assert.equal(res.statusCode, 202, res.body);
        await until(() => writer.stats.stagedViews === 0, 'the merger to merge');
      };
      await post('/v1');
      assert.deepEqual(vacuums, [], 'not after the first merge');
      await post('/v2');
      await until(() => vacuums.length === 1, 'a vacuum after the second merge');
      assert.match(vacuums[0]!, /^VACUUM page_views_staged, visitor_ids_staged, page_views_hourly/);
      failVacuum = true;
      await post('/v3');
      await post('/v4');
      await until(() => errors.length === 1, 'the failed vacuum to be logged');
      assert.match(errors[0]!, /vacuuming/);
      assert.equal(await rolledUp(seeded.project.id), 4);
      assert.equal(await stagedViews(), 0);
    } finally {
      await app.close();
    }
  });

  test('closing the app merges what is staged', async () => {
    const writer = new GroupCommitWriter(db(), NO_BACKGROUND_MERGE);
    const app = await ingestTestApp(db(), { writer });
    const seeded = await seedProject(db());
    const res = await postRecords(app, seeded.project.id, seeded.ingestKey, [human('/closing')]);
    assert.equal(res.statusCode, 202, res.body);
    await app.close();
    assert.equal(await rolledUp(seeded.project.id), 1);
    assert.equal(await stagedViews(), 0);
  });

  test('a merge that fails loses nothing: the rows stay staged and the next merge counts them once', async () => {
    const seeded = await seedProject(db());
    await stage(db(), [viewRow(seeded.project.id, '/f', 4), viewRow(seeded.project.id, '/g', 1)]);
    const control = controllableDatabase(db());
    control.failNextCommit();
    await assert.rejects(mergeStagedViews(control.db), /injected failure/);
    assert.equal(await stagedViews(), 5);
    assert.equal(await rolledUp(seeded.project.id), 0);
    assert.deepEqual(await mergeStagedViews(control.db), { rows: 1, views: 5, orphanViews: 0 });
    assert.equal(await rolledUp(seeded.project.id), 5);
  });

  test('concurrent merges count every staged view once (more rows than one merge takes)', async () => {
    const seeded = await seedProject(db());
    // 250 staged rows: more than one merge transaction takes, so the merges interleave.
    for (let i = 0; i < 250; i++) {
      await stage(db(), [viewRow(seeded.project.id, `/c${i % 7}`, 1), viewRow(seeded.project.id, '/c', 2)]);
    }
    const results = await Promise.all([
      mergeStagedViews(db()),
      mergeStagedViews(db()),
      mergeStagedViews(db()),
    ]);
    assert.equal(
      results.reduce((sum, r) => sum + r.views, 0),
      750,
    );
    assert.equal(await rolledUp(seeded.project.id), 750);
    assert.equal(await stagedViews(), 0);
    if (backend === 'postgres') {
      // On PostgreSQL the three really ran on separate connections; each took a share or none.
      assert.equal(
        results.reduce((sum, r) => sum + r.rows, 0),
        250,
      );
    }
  });

  test("a deleted project's staged views are dropped and do not hold back the others", async () => {
    const kept = await seedProject(db());
    const deleted = await seedProject(db());
    await stage(db(), [viewRow(deleted.project.id, '/gone', 3), viewRow(kept.project.id, '/here', 2)]);
    await db().query('DELETE FROM projects WHERE id = $1', [deleted.project.id]);
    assert.deepEqual(await mergeStagedViews(db()), { rows: 1, views: 2, orphanViews: 3 });
    assert.equal(await rolledUp(kept.project.id), 2);
    assert.equal(await stagedViews(), 0);
  });

  test('a new writer merges what an earlier process left staged (it was killed before merging)', async () => {
    const seeded = await seedProject(db());
    await stage(db(), [viewRow(seeded.project.id, '/left', 6)]);
    const writer = new GroupCommitWriter(db(), NO_BACKGROUND_MERGE);
    try {
      // Started writers merge at once, whatever their delay.
      for (let i = 0; (await rolledUp(seeded.project.id)) !== 6; i++) {
        if (i > 2000) assert.fail('the new writer did not merge the staged views');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(await stagedViews(), 0);
    } finally {
      await writer.close();
    }
  });

  test('while the merger is behind by more than maxStagedViews, batches are refused with 503', async () => {
    const control = controllableDatabase(db());
    const writer = new GroupCommitWriter(control.db, { maxStagedViews: 3, merger: { delayMs: 1 } });
    const app = await ingestTestApp(control.db, { writer });
    try {
      const seeded = await seedProject(db());
      // The group commit goes through; the merge it schedules waits: the four views stay staged.
      control.hold(1);
      const first = await postRecords(
        app,
        seeded.project.id,
        seeded.ingestKey,
        Array.from({ length: 4 }, () => human('/behind')),
      );
      assert.equal(first.statusCode, 202, first.body);
      await until(() => control.waitingAtGate() === 1, 'the merge to wait at the gate');
      const refused = await postRecords(app, seeded.project.id, seeded.ingestKey, [human('/later')]);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json().code, 'ingest_overloaded');
      assert.match(refused.json().error, /4 page views waiting to be merged/);
      assert.equal(refused.headers['retry-after'], '1');
      control.releaseAll();
      await until(() => writer.stats.stagedViews === 0, 'the merger to catch up');
      const again = await postRecords(app, seeded.project.id, seeded.ingestKey, [human('/later')]);
      assert.equal(again.statusCode, 202, again.body);
      assert.equal((await viewsReport(app, seeded.project.id, seeded.readKey)).totals.total, 5);
    } finally {
      control.releaseAll();
      await app.close();
    }
  });
});

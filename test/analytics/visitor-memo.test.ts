// A group commit stages only the visitor ids its writer has not committed before for the same
// page, hour and class (visitor-memo.ts): on both engines, through the real writer and fold, an
// id seen again is not staged twice, an id of a failed commit is staged by the retry, and the
// sketches count every visitor once either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupCommitWriter } from '../../src/modules/analytics/ingest/group-commit.ts';
import { ViewSums } from '../../src/modules/analytics/store/index.ts';
import type { EncodedVisitors } from '../../src/modules/analytics/store/visitor-sets.ts';
import { type VisitorClass, VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';
import { foldStagedVisitors } from '../../src/modules/analytics/store/visitor-staging.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { controllableDatabase } from './ingest-helpers.ts';

/** Neither the writer's merger nor its fold runs on its own: the test folds. */
const NO_BACKGROUND_MERGE = { merger: { delayMs: 600_000 } };
const HOUR = Math.floor(Date.now() / 3_600_000) * 3600;

function views(
  projectId: string,
  visits: [path: string, visitorClass: VisitorClass, id: number][],
): ViewSums {
  const sums = new ViewSums();
  for (const [path, visitorClass, id] of visits) {
    sums.add(projectId, HOUR, visitorClass, visitorClass === 'ai' ? 'GPTBot' : '', 'none', path, 1);
    sums.visitors.add(projectId, HOUR, visitorClass, path, id);
  }
  return sums;
}

await forEachBackend('visitor ids staged once per writer', ({ db }) => {
  /** Every staged (path, class, id), sorted; an id staged by two rows is there twice. */
  const staged = async () => {
    const rows = await db().query<{ ids: Uint8Array | null; visitors: string | null }>(
      'SELECT ids, visitors FROM visitor_ids_staged ORDER BY id',
    );
    return rows
      .flatMap((row) => {
        const sets = new VisitorSets();
        if (row.ids !== null) sets.addBinary(row.ids);
        else sets.addEncoded(JSON.parse(row.visitors!) as EncodedVisitors);
        return [...sets.entries()].flatMap((s) =>
          [...s.ids].map((id) => `${s.path} ${s.visitorClass} ${id}`),
        );
      })
      .sort();
  };
  const sketched = async (projectId: string) =>
    (
      await db().query<{ path: string }>(
        "SELECT path FROM visitor_sketches WHERE project_id = $1 AND level = 'h' ORDER BY path",
        [projectId],
      )
    ).map((r) => r.path);

  test('an id committed once is not staged again; another page, class or id is', async () => {
    await db().query('DELETE FROM visitor_ids_staged');
    const seeded = await seedProject(db());
    const id = seeded.project.id;
    const writer = new GroupCommitWriter(db(), NO_BACKGROUND_MERGE);
    try {
      await writer.submit(
        views(id, [
          ['/a', 'human', 1],
          ['/a', 'human', 2],
          ['/a', 'human', 1],
        ]),
      );
      await writer.submit(
        views(id, [
          ['/a', 'human', 1],
          ['/a', 'human', 3],
          ['/b', 'human', 1],
          ['/a', 'ai', 1],
        ]),
      );
      await writer.submit(
        views(id, [
          ['/a', 'human', 2],
          ['/b', 'human', 1],
        ]),
      );
      assert.deepEqual(await staged(), ['/a ai 1', '/a human 1', '/a human 2', '/a human 3', '/b human 1']);
      await foldStagedVisitors(db());
      assert.deepEqual(await staged(), []);
      assert.deepEqual(await sketched(id), ['', '/a', '/b']);
    } finally {
      await writer.close();
    }
  });

  test('the ids of a failed commit are staged by the next one', async () => {
    await db().query('DELETE FROM visitor_ids_staged');
    const seeded = await seedProject(db());
    const id = seeded.project.id;
    const control = controllableDatabase(db());
    const writer = new GroupCommitWriter(control.db, NO_BACKGROUND_MERGE);
    try {
      control.failNextCommit();
      await assert.rejects(writer.submit(views(id, [['/a', 'human', 7]])), /could not be committed/);
      assert.deepEqual(await staged(), []);
      await writer.submit(views(id, [['/a', 'human', 7]]));
      assert.deepEqual(await staged(), ['/a human 7']);
    } finally {
      await writer.close();
    }
  });
});

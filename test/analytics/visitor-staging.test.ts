// How a group commit stages its visitor ids (migration 0021): as bytes (VisitorSets.encodeBinary)
// in the statement that stages its views. The form must give back exactly the sets it was made
// of, and rows staged as JSON text before the migration must still be folded, with the new ones,
// into the same counts: on both engines, through the real writer and fold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stageViews, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { mergeStagedViews } from '../../src/modules/analytics/store/staged-views.ts';
import { VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';
import { VisitorSketch } from '../../src/modules/analytics/store/visitor-sketch.ts';
import { foldStagedVisitors } from '../../src/modules/analytics/store/visitor-staging.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const HOUR = Math.floor(Date.now() / 3_600_000) * 3600;

/** Every (project, hour, class, path, id) of the sets, sorted. */
const flat = (sets: VisitorSets) =>
  [...sets.entries()]
    .flatMap((s) =>
      [...s.ids].map((id) => `${s.projectId} ${s.hourSeconds} ${s.visitorClass} ${s.path} ${id}`),
    )
    .sort();

test('the binary form gives back its sets: projects, hours, classes, any path text, 53-bit ids', () => {
  const sets = new VisitorSets();
  const paths = ['/', '/a', '/ünïcødé/日本語', '/emoji/😀', `/${'x'.repeat(70_000)}`, '/with\ttab'];
  for (const [p, path] of paths.entries()) {
    for (let i = 0; i < 50; i++) sets.add('prj_a', HOUR, 'human', path, i * 2 ** 40 + p);
    sets.add('prj_b', HOUR - 3600, 'ai', path, 2 ** 53 - 1 - p);
  }
  const part = new VisitorSets();
  part.add('prj_c', 0, 'human', '/old', 0);
  sets.addSets(part);
  const decoded = new VisitorSets();
  decoded.addBinary(sets.encodeBinary());
  assert.deepEqual(flat(decoded), flat(sets));
  assert.equal(flat(decoded).length, paths.length * 51 + 1);
  // An empty set of sets is the version byte alone, and gives nothing back.
  const empty = new VisitorSets();
  empty.addBinary(new VisitorSets().encodeBinary());
  assert.equal(empty.isEmpty, true);
  // Anything else is refused, never read as ids.
  assert.throws(() => new VisitorSets().addBinary(Buffer.from('[["prj_a"]]')), /unknown form/);
  const cut = sets.encodeBinary();
  assert.throws(() => new VisitorSets().addBinary(cut.subarray(0, cut.length - 3)), RangeError);
});

await forEachBackend('visitor ids staged as bytes', ({ db }) => {
  const hourCount = async (projectId: string, path: string) => {
    const rows = await db().query<{ human: Uint8Array | null }>(
      "SELECT human FROM visitor_sketches WHERE project_id = $1 AND level = 'h' AND path = $2",
      [projectId, path],
    );
    return rows[0]?.human ? VisitorSketch.decode(rows[0].human).count() : 0;
  };

  test('a commit stages bytes; JSON rows staged before the migration are folded with them', async () => {
    await db().query('DELETE FROM visitor_ids_staged');
    const { project } = await seedProject(db());
    // A row as ingest staged it before migration 0021: JSON text, ids 1 and 2 on /old.
    const before = new VisitorSets();
    before.add(project.id, HOUR, 'human', '/old', 1);
    before.add(project.id, HOUR, 'human', '/old', 2);
    await db().query('INSERT INTO visitor_ids_staged (visitors) VALUES ($1)', [
      JSON.stringify(before.encode()),
    ]);
    // A group commit's staging now (a writer would fold at its start): ids 2 and 3 on /old, 2
    // staged already in the old row.
    const sums = new ViewSums();
    for (const id of [2, 3]) {
      sums.add(project.id, HOUR, 'human', '', 'none', '/old', 1);
      sums.visitors.add(project.id, HOUR, 'human', '/old', id);
    }
    await db().transaction((tx) => stageViews(tx, sums));
    try {
      const rows = await db().query<{ ids: Uint8Array | null; visitors: string | null }>(
        'SELECT ids, visitors FROM visitor_ids_staged ORDER BY id',
      );
      assert.equal(rows.length, 2);
      assert.equal(rows[1]!.visitors, null, 'the new row holds no JSON');
      const staged = new VisitorSets();
      staged.addBinary(rows[1]!.ids!);
      assert.deepEqual(flat(staged), [
        `${project.id} ${HOUR} human /old 2`,
        `${project.id} ${HOUR} human /old 3`,
      ]);
      assert.equal(await foldStagedVisitors(db()), 2);
      assert.equal(await hourCount(project.id, '/old'), 3, 'ids 1, 2 and 3, each once');
      assert.equal(await hourCount(project.id, ''), 3, 'the whole site too');
    } finally {
      await mergeStagedViews(db());
    }
  });

  test('a staged row holds exactly one form', async () => {
    await assert.rejects(db().query('INSERT INTO visitor_ids_staged (visitors, ids) VALUES (NULL, NULL)'));
    await assert.rejects(
      db().query("INSERT INTO visitor_ids_staged (visitors, ids) VALUES ('[]', '\\x01'::bytea)"),
    );
  });
});

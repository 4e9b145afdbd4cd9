// Storage settings for ingest's hot paths (migrations 0031 and 0032): the staged payloads are not
// compressed (they are written once and deleted within seconds), and page_views_hourly leaves
// room on its pages for the merges' updates. On both engines: PGlite applies the same migrations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('ingest storage settings', ({ db }) => {
  test('staged payload columns are stored uncompressed (EXTERNAL)', async () => {
    const rows = await db().query<{ col: string; storage: string }>(
      `SELECT c.relname || '.' || a.attname AS col, a.attstorage AS storage
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname IN ('page_views_staged', 'visitor_ids_staged')
          AND a.attname IN ('counts', 'referrals', 'formats', 'ids', 'visitors')
        ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((r) => `${r.col}=${r.storage}`),
      [
        'page_views_staged.counts=e',
        'page_views_staged.formats=e',
        'page_views_staged.referrals=e',
        'visitor_ids_staged.ids=e',
        'visitor_ids_staged.visitors=e',
      ],
    );
  });

  test('a large staged row is kept as sent (not compressed) and read back whole', async () => {
    const counts = JSON.stringify([['p', 0, 'human', '', '', Array.from({ length: 4000 }, () => '/a')]]);
    const [row] = await db().query<{ id: number }>(
      'INSERT INTO page_views_staged (views, counts) VALUES (1, $1) RETURNING id',
      [counts],
    );
    const [stored] = await db().query<{ counts: string; size: number }>(
      'SELECT counts, pg_column_size(counts) AS size FROM page_views_staged WHERE id = $1',
      [row!.id],
    );
    assert.equal(stored!.counts, counts);
    // Compressed, this very repetitive text would take a few hundred bytes.
    assert.ok(Number(stored!.size) >= counts.length, `stored ${stored!.size} bytes of ${counts.length}`);
    await db().query('DELETE FROM page_views_staged WHERE id = $1', [row!.id]);
  });

  test('page_views_hourly leaves a fifth of each page free (fillfactor 80)', async () => {
    const [row] = await db().query<{ options: string[] | null }>(
      `SELECT reloptions AS options FROM pg_class WHERE relname = 'page_views_hourly'`,
    );
    assert.deepEqual(row!.options, ['fillfactor=80']);
  });
});

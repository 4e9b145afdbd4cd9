// addViews (here mostly through test/helpers/seed-views.ts), the store's one way views get into
// page_views_hourly: aggregation of repeated keys, hour truncation, increments, batches beyond
// 1,000 keys, all-or-nothing, concurrent writers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addViews, type PageViewCount, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { UPSERT_BATCH_SIZE } from '../../src/modules/analytics/store/level-writes.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { recordPageViews } from '../helpers/seed-views.ts';

interface StoredRow {
  hour: Date;
  path: string;
  traffic_class: string;
  agent: string;
  verification: string;
  views: number;
}

await forEachBackend('page-view rollups', ({ db, backend }) => {
  const stored = (projectId: string) =>
    db().query<StoredRow>(
      `SELECT hour, path, traffic_class, agent, verification, views FROM page_views_hourly
        WHERE project_id = $1 ORDER BY hour, path COLLATE "C", traffic_class, agent, verification`,
      [projectId],
    );
  const newProject = async () => (await seedProject(db())).project.id;

  test('repeated keys in one call are summed; any time in an hour lands on that UTC hour', async () => {
    const projectId = await newProject();
    const result = await recordPageViews(db(), [
      { projectId, hour: new Date('2025-01-01T10:00:00.000Z'), path: '/a', trafficClass: 'human', views: 1 },
      { projectId, hour: new Date('2025-01-01T10:59:59.999Z'), path: '/a', trafficClass: 'human', views: 2 },
      { projectId, hour: new Date('2025-01-01T12:30:00+02:00'), path: '/a', trafficClass: 'human', views: 4 },
      { projectId, hour: new Date('2025-01-01T11:00:00.000Z'), path: '/a', trafficClass: 'human', views: 8 },
    ]);
    assert.deepEqual(result, { keys: 2, views: 15 });
    assert.deepEqual(await stored(projectId), [
      {
        hour: new Date('2025-01-01T10:00:00Z'),
        path: '/a',
        traffic_class: 'human',
        agent: '',
        verification: '',
        views: 7,
      },
      {
        hour: new Date('2025-01-01T11:00:00Z'),
        path: '/a',
        traffic_class: 'human',
        agent: '',
        verification: '',
        views: 8,
      },
    ]);
  });

  test('class, agent and verification are part of the key; a later call adds to the counts', async () => {
    const projectId = await newProject();
    const hour = new Date('2025-01-01T10:00:00Z');
    const batch: PageViewCount[] = [
      { projectId, hour, path: '/a', trafficClass: 'ai', agent: 'GPTBot', verification: 'ip', views: 1 },
      { projectId, hour, path: '/a', trafficClass: 'ai', agent: 'GPTBot', verification: 'claimed', views: 2 },
      { projectId, hour, path: '/a', trafficClass: 'ai', agent: 'ClaudeBot', verification: 'ip', views: 3 },
      { projectId, hour, path: '/a', trafficClass: 'bot', agent: 'Googlebot', views: 4 },
    ];
    await recordPageViews(db(), batch);
    await recordPageViews(db(), batch);
    const rows = await stored(projectId);
    assert.deepEqual(
      rows.map((r) => [r.traffic_class, r.agent, r.verification, r.views]),
      [
        ['ai', 'ClaudeBot', 'ip', 6],
        ['ai', 'GPTBot', 'claimed', 4],
        ['ai', 'GPTBot', 'ip', 2],
        ['bot', 'Googlebot', '', 8],
      ],
    );
  });

  test('more keys than one batch are all written, and counts are exact JS numbers', async () => {
    const projectId = await newProject();
    const keys = UPSERT_BATCH_SIZE * 2 + 500;
    const rows: PageViewCount[] = [];
    for (let i = 0; i < keys; i++) {
      rows.push({
        projectId,
        hour: new Date(Date.UTC(2025, 0, 1, i % 24)),
        path: `/p/${Math.floor(i / 24)}`,
        trafficClass: 'human',
        views: i + 1,
      });
    }
    rows.push({ ...rows[0]!, views: 2 ** 40 }); // a repeated key, and a count beyond 32 bits
    const result = await recordPageViews(db(), rows);
    assert.equal(result.keys, keys);
    const [sum] = await db().query<{ n: number; views: number }>(
      'SELECT count(*)::bigint AS n, sum(views)::bigint AS views FROM page_views_hourly WHERE project_id = $1',
      [projectId],
    );
    assert.equal(sum!.n, keys);
    assert.equal(sum!.views, (keys * (keys + 1)) / 2 + 2 ** 40);
    assert.equal(typeof sum!.views, 'number');
  });

  test('rows with zero views write nothing; an empty call is a no-op', async () => {
    const projectId = await newProject();
    const hour = new Date('2025-01-01T10:00:00Z');
    assert.deepEqual(await recordPageViews(db(), []), { keys: 0, views: 0 });
    assert.deepEqual(
      await recordPageViews(db(), [{ projectId, hour, path: '/a', trafficClass: 'human', views: 0 }]),
      { keys: 0, views: 0 },
    );
    assert.deepEqual(await stored(projectId), []);
  });

  test('a malformed row fails the whole call before anything is written', async () => {
    const projectId = await newProject();
    const good: PageViewCount = {
      projectId,
      hour: new Date('2025-01-01T10:00:00Z'),
      path: '/a',
      trafficClass: 'human',
      views: 1,
    };
    const bad: [string, Partial<Record<keyof PageViewCount, unknown>>][] = [
      ['views must be a non-negative integer', { views: -1 }],
      ['views must be a non-negative integer', { views: 1.5 }],
      ['views must be a non-negative integer', { views: Number.NaN }],
      ['trafficClass must be human, ai or bot', { trafficClass: 'robot' }],
      ['hour must be a valid Date', { hour: new Date('nope') }],
      ['hour must be a valid Date', { hour: '2025-01-01T10:00:00Z' }],
      ['hour must be within the years 0001 to 9999', { hour: new Date('+010000-01-01T00:00:00Z') }],
      ['path must be a non-empty string', { path: '' }],
      ['path must be a non-empty string', { path: '/a\u0000b' }],
      ['agent must be a string', { agent: 7 }],
      ['verification must be a string', { verification: null }],
      ['projectId must be a non-empty string', { projectId: '' }],
    ];
    for (const [message, change] of bad) {
      await assert.rejects(
        recordPageViews(db(), [good, { ...good, ...change } as PageViewCount]),
        (error: Error) => error instanceof TypeError && error.message === `page views row 1: ${message}`,
      );
    }
    assert.deepEqual(await stored(projectId), [], 'the good row was not written either');
  });

  test('a database failure in a later batch rolls back the earlier batches', async () => {
    const projectId = await newProject();
    const rows: PageViewCount[] = [];
    for (let i = 0; i < UPSERT_BATCH_SIZE + 10; i++) {
      rows.push({
        projectId,
        hour: new Date('2025-01-01T10:00:00Z'),
        path: `/p/${i}`,
        trafficClass: 'human',
        views: 1,
      });
    }
    // Keys are written in sorted order, so this unknown project sorts last: the second batch.
    rows.push({ ...rows[0]!, projectId: 'prj_zzzzzzzzzzzzzzzz' });
    await assert.rejects(recordPageViews(db(), rows), /foreign key/);
    assert.deepEqual(await stored(projectId), []);
  });

  test("addViews writes inside the caller's transaction and is rolled back with it", async () => {
    const projectId = await newProject();
    const row: PageViewCount = {
      projectId,
      hour: new Date('2025-01-01T10:00:00Z'),
      path: '/a',
      trafficClass: 'human',
      views: 5,
    };
    await assert.rejects(
      db().transaction(async (tx) => {
        await addViews(tx, ViewSums.ofRows([row, row]));
        throw new Error('caller gives up');
      }),
      /caller gives up/,
    );
    assert.deepEqual(await stored(projectId), []);
    await db().transaction((tx) => addViews(tx, ViewSums.ofRows([row, row])));
    assert.equal((await stored(projectId))[0]!.views, 10);
  });

  test('concurrent writers to the same keys neither deadlock nor lose counts', async () => {
    const projectId = await newProject();
    const base: PageViewCount[] = [];
    for (let i = 0; i < 1500; i++) {
      base.push({
        projectId,
        hour: new Date(Date.UTC(2025, 0, 1, i % 5)),
        path: `/p/${Math.floor(i / 5)}`,
        trafficClass: 'human',
        views: 1,
      });
    }
    // Each writer sends the same keys in a different order.
    const shuffled = (seed: number) =>
      base
        .map((row, i) => ({ row, k: (i * 7919 + seed * 104729) % 1500 }))
        .sort((a, b) => a.k - b.k)
        .map((x) => x.row);
    const writers = backend === 'postgres' ? 6 : 3;
    await Promise.all(Array.from({ length: writers }, (_, w) => recordPageViews(db(), shuffled(w))));
    const rows = await stored(projectId);
    assert.equal(rows.length, 1500);
    assert.ok(rows.every((r) => r.views === writers));
  });
});

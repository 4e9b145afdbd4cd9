// The first pages of /visitors for a range not ranked yet (store/top-visitors.ts: the top of each
// bucket by its rows' stored bounds, stopping once no unseen page can enter the page) against a
// ranking of every page: skewed pages, some with estimated (HyperLogLog) counts, many ties, ranges
// on and off midnight, across months, unbounded sides, offsets up to the method's limit; rows
// written before migration 0027 (no bound) until the backfill counts them. And the bound itself
// (visitor-bounds.ts) against merged sketches. Both backends.
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { readPage } from '../../src/modules/analytics/store/index.ts';
import { backfillSketchBounds } from '../../src/modules/analytics/store/visitor-bound-backfill.ts';
import { pageBound, sketchBound } from '../../src/modules/analytics/store/visitor-bounds.ts';
import { VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';
import { unionCount, VisitorSketch } from '../../src/modules/analytics/store/visitor-sketch.ts';
import { writeVisitorSets } from '../../src/modules/analytics/store/visitor-writes.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const HOUR = 3600;
const DAY = 86_400;
const utc = (iso: string) => Date.parse(iso) / 1000;
const FROM = utc('2024-01-22T00:00:00Z');
const DAYS = 40;
const TO = FROM + DAYS * DAY;
/** "Now" for the reads: after the data, so its months are whole. */
const NOW_MS = Date.parse('2024-06-01T00:00:00Z');

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** A 53-bit id from a seeded stream, uniform as the keyed hash makes them (a SHA-256 of a counter). */
function idStream(seed: number): () => number {
  let n = 0;
  return () => {
    const digest = hash('sha256', `${seed}:${n++}`, 'buffer');
    return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
  };
}

/**
 * Per day, readers of pages ranked by a skewed popularity: page 0 gets thousands of distinct readers
 * a day (a HyperLogLog), the tail a few each (exact sets, many ties). Readers change every day
 * (the daily salt) but a tenth come back with yesterday's id (as a log import's run salt would
 * give). Views land in four hours of the day, so ranges off midnight have edge hours.
 */
async function seed(db: Database, projectId: string, random: () => number): Promise<void> {
  const id53 = idStream(Math.floor(random() * 1e9));
  let yesterday: number[] = [];
  for (let d = 0; d < DAYS; d++) {
    const sets = new VisitorSets();
    const today: number[] = [];
    const pool = Array.from({ length: 6000 }, id53);
    for (let v = 0; v < 9000; v++) {
      const rank = Math.floor(300 ** (random() ** 1.6)) - 1;
      const path = [`/docs/${rank}`, `/Docs/${rank}`, `/é/${rank}`][rank % 3]!;
      const id =
        yesterday.length > 0 && random() < 0.1
          ? yesterday[Math.floor(random() * yesterday.length)]!
          : pool[Math.floor(pool.length * random() ** 2)]!;
      today.push(id);
      const hour = FROM + d * DAY + [0, 5, 13, 22][Math.floor(random() * 4)]! * HOUR;
      sets.add(projectId, hour, random() < 0.7 ? 'human' : 'ai', path, id);
    }
    yesterday = today;
    await db.transaction((tx) => writeVisitorSets(tx, sets));
  }
}

/**
 * One page: from the early stop (top) or a ranking. Each read first moves the project's sketch
 * generation on, so neither finds a ranking or page the other kept in memory.
 */
async function read(
  db: Database,
  projectId: string,
  from: number | null,
  to: number | null,
  page: { limit: number; offset: number },
  top: boolean,
) {
  await db.query('UPDATE visitor_generations SET generation = generation + 1 WHERE project_id = $1', [
    projectId,
  ]);
  return readPage(db, projectId, { from, to }, page, {
    report: 'visitors',
    nowMs: NOW_MS,
    ...(top ? {} : { topVisitorsMaxRows: 0 }),
  });
}

await forEachBackend('/visitors first pages without a ranking', ({ db, backend }) => {
  test('equal the ranking over random ranges and offsets, rows without bounds included', async () => {
    const random = prng(backend === 'pglite' ? 11 : 12);
    const projectId = (await seedProject(db())).project.id;
    await seed(db(), projectId, random);
    const ranges: [number | null, number | null][] = [
      [null, null],
      [FROM, TO],
      [utc('2024-02-09T00:00:00Z'), utc('2024-02-10T00:00:00Z')],
      [utc('2024-02-09T05:00:00Z'), utc('2024-02-09T06:00:00Z')],
      [utc('2024-02-09T05:00:00Z'), utc('2024-02-10T23:00:00Z')],
      [utc('2024-01-28T13:00:00Z'), utc('2024-02-04T13:00:00Z')],
      [utc('2024-01-31T22:00:00Z'), null],
      [null, utc('2024-03-01T07:00:00Z')],
      [utc('2024-02-01T00:00:00Z'), utc('2024-03-01T00:00:00Z')],
    ];
    for (let i = 0; i < 5; i++) {
      const a = FROM - 2 * DAY + Math.floor(random() * (DAYS + 4) * 24) * HOUR;
      ranges.push([a, a + (1 + Math.floor(random() * (random() < 0.5 ? 48 : 30 * 24))) * HOUR]);
    }
    const check = async (from: number | null, to: number | null) => {
      for (const [limit, offset] of [
        [51, 0],
        [1 + Math.floor(random() * 30), Math.floor(random() * 120)],
        [251, 749],
      ] as const) {
        const page = { limit, offset };
        const label = `${from}..${to} limit ${limit} offset ${offset}`;
        const ranked = await read(db(), projectId, from, to, page, false);
        const top = await read(db(), projectId, from, to, page, true);
        assert.deepEqual(top, ranked, label);
      }
    };
    for (const [from, to] of ranges) await check(from, to);

    // Rows written before migration 0027 have no bound: the reads rank instead, still equal, until
    // the backfill has given every row its bound back.
    const before = await db().query<{ bound: string }>(
      `SELECT bound::text FROM visitor_sketches WHERE project_id = $1 AND level <> 'h' ORDER BY level, bucket, path`,
      [projectId],
    );
    await db().query(`UPDATE visitor_sketches SET bound = NULL WHERE project_id = $1 AND level = 'd'`, [
      projectId,
    ]);
    for (const [from, to] of ranges.slice(0, 3)) await check(from, to);
    while ((await backfillSketchBounds(db(), 700)) === 700) {}
    const after = await db().query<{ bound: string }>(
      `SELECT bound::text FROM visitor_sketches WHERE project_id = $1 AND level <> 'h' ORDER BY level, bucket, path`,
      [projectId],
    );
    assert.deepEqual(after, before, 'the backfill gives the bounds the writer gives');
    for (const [from, to] of ranges.slice(0, 3)) await check(from, to);
  });

  test("a bound below a row's count gives a different page: the comparison catches a broken bound", async () => {
    const random = prng(backend === 'pglite' ? 21 : 22);
    const projectId = (await seedProject(db())).project.id;
    await seed(db(), projectId, random);
    const page = { limit: 11, offset: 0 };
    const ranked = await read(db(), projectId, FROM, TO, page, false);
    // The page's first row, its bounds cut to 1: it looks like the tail and is never read.
    await db().query(`UPDATE visitor_sketches SET bound = 1 WHERE project_id = $1 AND path = $2`, [
      projectId,
      ranked.rows[0]!.path,
    ]);
    const top = await read(db(), projectId, FROM, TO, page, true);
    assert.notDeepEqual(top.rows, ranked.rows);
    assert.deepEqual(top.totals, ranked.totals);
  });
});

// After the suites above: its CPU-bound loop would otherwise hold up their connection check.
test('a page count is within the bound of its rows, merged however (fails without the margin)', () => {
  const random = prng(3);
  const id53 = idStream(3);
  const sizes = [1, 40, 900, 1500, 2100, 3000, 6000];
  for (let trial = 0; trial < 150; trial++) {
    const rows: VisitorSketch[] = [];
    const shared = Array.from({ length: 3000 }, id53);
    const parts = 1 + Math.floor(random() * 6);
    // Half the trials share ids between rows (hours of one day), half not (days: the tight case).
    const overlap = trial % 2 === 0;
    for (let p = 0; p < parts; p++) {
      const sketch = new VisitorSketch();
      const size = sizes[Math.floor(random() * sizes.length)]!;
      for (let i = 0; i < size; i++)
        sketch.add(overlap && random() < 0.2 ? shared[i % shared.length]! : id53());
      rows.push(VisitorSketch.decode(sketch.encode()));
    }
    const sum = rows.reduce((a, s) => a + sketchBound(s), 0);
    const count = unionCount(rows);
    assert.ok(count <= pageBound(sum), `trial ${trial}: ${count} > bound ${pageBound(sum)} of ${sum}`);
  }
});

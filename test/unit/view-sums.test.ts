// ViewSums (the nested sums ingestion stages and merges) against the rollups' own aggregate():
// the same rows give the same sorted counts, also after a trip through the staged JSON, and a
// bad row is refused with the same message; a request's tally sums as ViewSums.add does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewKind } from '../../src/modules/analytics/classification/view-kind.ts';
import { RollupTally } from '../../src/modules/analytics/ingest/rollup-tally.ts';
import { type PageViewCount, ViewSums } from '../../src/modules/analytics/store/index.ts';
import { aggregate } from '../../src/modules/analytics/store/rollups.ts';
import type { EncodedSums } from '../../src/modules/analytics/store/view-sums.ts';

function randomRows(seed: number, count: number): PageViewCount[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const paths = ['/', '/a', '/a/b', '/__proto__', '/constructor', '/q"uote', '/ünï', '/a\\b'];
  const kinds = [
    ['human', '', ''],
    ['ai', 'GPTBot', 'verified'],
    ['ai', 'GPTBot', 'unverified'],
    ['ai', 'ClaudeBot', 'claimed'],
    ['bot', 'Googlebot', ''],
  ] as const;
  return Array.from({ length: count }, () => {
    const [trafficClass, agent, verification] = kinds[next(kinds.length)]!;
    return {
      projectId: ['prj_a', 'prj_b'][next(2)]!,
      // Any time within three hours: rows of one hour must be summed together.
      hour: new Date(Date.UTC(2026, 10, 26, 9) + next(3 * 3600) * 1000),
      path: paths[next(paths.length)]!,
      trafficClass,
      ...(agent === '' && next(2) === 0 ? {} : { agent, verification }),
      views: next(4),
    };
  });
}

test('sums equal aggregate() on the same rows, in the same order, before and after the staged JSON', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rows = randomRows(seed, 300);
    const sums = new ViewSums();
    rows.forEach((row, index) => {
      sums.addRow(row, index);
    });
    const expected = aggregate(rows);
    assert.deepEqual(sums.sortedCounts(), expected);
    assert.equal(
      sums.views,
      rows.reduce((total, row) => total + row.views, 0),
    );

    const decoded = new ViewSums();
    decoded.addEncoded(JSON.parse(JSON.stringify(sums.encode())) as EncodedSums);
    assert.deepEqual(decoded.sortedCounts(), expected);

    // Sums of sums: two halves added together are the whole.
    const first = new ViewSums();
    const second = new ViewSums();
    rows.forEach((row, index) => {
      (index % 2 === 0 ? first : second).addRow(row, index);
    });
    first.addSums(second);
    assert.deepEqual(first.sortedCounts(), expected);
  }
});

test('a row the rollups would refuse is refused with the same words', () => {
  const bad: PageViewCount[] = [
    {
      projectId: 'prj_a',
      hour: new Date(Date.UTC(2026, 0, 1)),
      path: '/ok',
      trafficClass: 'human',
      views: 1,
    },
    {
      projectId: 'prj_a',
      hour: new Date(Date.UTC(2026, 0, 1)),
      path: 'a\0b',
      trafficClass: 'human',
      views: 1,
    },
  ];
  const sums = new ViewSums();
  assert.throws(
    () =>
      bad.forEach((row, index) => {
        sums.addRow(row, index);
      }),
    {
      name: 'TypeError',
      message: 'page views row 1: path must be a non-empty string',
    },
  );
  assert.throws(() => aggregate(bad), {
    name: 'TypeError',
    message: 'page views row 1: path must be a non-empty string',
  });
});

test("a request's tally sums as ViewSums.add does, with shared and fresh view kinds across hours", () => {
  // RollupTally keeps each view kind's paths map per hour (rollup-tally.ts): shared kinds (the
  // fast path's) and fresh objects of equal parts (the general path's) must land in one sum.
  const shared = [viewKind('human', '', ''), viewKind('ai', 'GPTBot', 'verified'), viewKind('bot', 'x', '')];
  const tally = new RollupTally('prj_a');
  const expected = new ViewSums();
  // Hours since the epoch, as the tally takes them; the sums keep epoch seconds.
  const hours = [9, 10, 11].map((h) => Date.UTC(2026, 10, 26, h) / 3_600_000);
  let state = 7;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  for (let index = 0; index < 2_000; index++) {
    const hour = hours[next(hours.length)]!;
    const base = shared[next(shared.length)]!;
    const kind = next(4) === 0 ? viewKind(base.trafficClass, base.agent, base.verification) : base;
    const path = ['/', '/a', '/b'][next(3)]!;
    tally.view(index, hour, kind, path, false);
    expected.add('prj_a', hour * 3600, kind.trafficClass, kind.agent, kind.verification, path, 1);
  }
  assert.deepEqual(tally.sums.sortedCounts(), expected.sortedCounts());
  assert.equal(tally.accepted, 2_000);
});

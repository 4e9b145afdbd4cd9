// Unit tests of the range split behind the fast export: whatever the range and the sealed months,
// the spans tile the range's hours exactly once, each span on its level's bucket boundaries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { HourRange } from '../../src/modules/analytics/store/index.ts';
import {
  type MonthRun,
  monthsToSeal,
  type Span,
  splitRange,
} from '../../src/modules/analytics/store/range-split.ts';
import { addMonths, floorToMonth } from '../../src/modules/analytics/time-buckets.ts';

const HOUR = 3600;
const DAY = 86_400;
const utc = (iso: string) => Date.parse(iso) / 1000;
// The window the property test draws from and checks hour by hour: 2024-11-01 to 2027-03-01.
const WINDOW_FROM = utc('2024-11-01T00:00:00Z');
const WINDOW_TO = utc('2027-03-01T00:00:00Z');
const WINDOW_HOURS = (WINDOW_TO - WINDOW_FROM) / HOUR;

const inSpan = (t: number, s: Span) => (s.from === null || t >= s.from) && (s.to === null || t < s.to);
const inRange = (t: number, r: HourRange) => (r.from === null || t >= r.from) && (r.to === null || t < r.to);
const isMonthStart = (t: number) => floorToMonth(t) === t;

/** Every hour of the window: covered by exactly one span when in range, by none otherwise. */
function assertTiles(range: HourRange, sealed: MonthRun | null): void {
  const split = splitRange(range, sealed);
  assert.ok(
    split.hours.length <= 2 && split.days.length <= 2 && split.months.length <= 1,
    JSON.stringify(split),
  );
  // A range holding no whole day is read as hours only (up to 46 of them, e.g. 01:00 to 23:00 the
  // next day); otherwise the hours are the edges around the days, each under a day.
  const hoursOnly = split.days.length === 0 && split.months.length === 0;
  for (const span of split.hours) {
    assert.ok(
      span.from !== null && span.to !== null && span.to - span.from < (hoursOnly ? 2 * DAY : DAY),
      'edge hours: bounded, under a day (under two when the range holds no whole day)',
    );
    assert.equal(span.from % HOUR, 0);
    assert.equal(span.to % HOUR, 0);
  }
  for (const span of split.days) {
    if (span.from !== null) assert.equal(span.from % DAY, 0, 'days start at midnight');
    if (span.to !== null) assert.equal(span.to % DAY, 0, 'days end at midnight');
  }
  for (const span of split.months) {
    assert.ok(sealed !== null && span.from !== null && span.to !== null, 'months only inside a sealed run');
    assert.ok(isMonthStart(span.from) && isMonthStart(span.to));
    assert.ok(span.from >= sealed.from && span.to <= sealed.to, 'inside the sealed run');
  }
  const all = [...split.hours, ...split.days, ...split.months];
  for (let h = 0; h < WINDOW_HOURS; h++) {
    const t = WINDOW_FROM + h * HOUR;
    const covering = all.filter((s) => inSpan(t, s)).length;
    assert.equal(covering, inRange(t, range) ? 1 : 0, `hour ${new Date(t * 1000).toISOString()}`);
  }
}

const hourIn = (from: number, to: number) =>
  fc.integer({ min: 0, max: (to - from) / HOUR }).map((h) => from + h * HOUR);
const boundedRange = fc
  .tuple(
    hourIn(WINDOW_FROM + 31 * DAY, WINDOW_TO - 31 * DAY),
    hourIn(WINDOW_FROM + 31 * DAY, WINDOW_TO - 31 * DAY),
  )
  .filter(([a, b]) => a !== b)
  .map(([a, b]): HourRange => ({ from: Math.min(a, b), to: Math.max(a, b) }));
const anyRange = fc.oneof(
  boundedRange,
  boundedRange.map((r) => ({ from: null, to: r.to })),
  boundedRange.map((r) => ({ from: r.from, to: null })),
  fc.constant<HourRange>({ from: null, to: null }),
);
const monthIndex = fc.integer({ min: 0, max: 27 });
const sealedRun = fc.option(
  fc
    .tuple(monthIndex, monthIndex)
    .filter(([a, b]) => a !== b)
    .map(
      ([a, b]): MonthRun => ({
        from: addMonths(WINDOW_FROM, Math.min(a, b)),
        to: addMonths(WINDOW_FROM, Math.max(a, b)),
      }),
    ),
  { nil: null },
);

test('the spans tile any range exactly once, on bucket boundaries, whatever months are sealed', () => {
  fc.assert(
    fc.property(anyRange, sealedRun, (range, sealed) => assertTiles(range, sealed)),
    { numRuns: 150 },
  );
});

test('worked examples: edge hours, whole days, a sealed month in the middle', () => {
  const range = { from: utc('2026-01-30T13:00:00Z'), to: utc('2026-03-02T05:00:00Z') };
  const sealed = { from: utc('2025-06-01T00:00:00Z'), to: utc('2026-03-01T00:00:00Z') };
  assert.deepEqual(splitRange(range, sealed), {
    hours: [
      { from: utc('2026-01-30T13:00:00Z'), to: utc('2026-01-31T00:00:00Z') },
      { from: utc('2026-03-02T00:00:00Z'), to: utc('2026-03-02T05:00:00Z') },
    ],
    days: [
      { from: utc('2026-01-31T00:00:00Z'), to: utc('2026-02-01T00:00:00Z') },
      { from: utc('2026-03-01T00:00:00Z'), to: utc('2026-03-02T00:00:00Z') },
    ],
    months: [{ from: utc('2026-02-01T00:00:00Z'), to: utc('2026-03-01T00:00:00Z') }],
  });
  // Nothing sealed: the same range as days.
  assert.deepEqual(splitRange(range, null).days, [
    { from: utc('2026-01-31T00:00:00Z'), to: utc('2026-03-02T00:00:00Z') },
  ]);
  // Inside one day: hours only.
  const hours = { from: utc('2026-01-30T13:00:00Z'), to: utc('2026-01-31T05:00:00Z') };
  assert.deepEqual(splitRange(hours, sealed), { hours: [hours], days: [], months: [] });
  // Unbounded: days on both open sides of the sealed run.
  assert.deepEqual(splitRange({ from: null, to: null }, sealed), {
    hours: [],
    days: [
      { from: null, to: sealed.from },
      { from: sealed.to, to: null },
    ],
    months: [sealed],
  });
});

test('monthsToSeal: the ended whole months of the range that have views, at most a century', () => {
  const now = utc('2026-03-17T10:00:00Z');
  const firstDay = utc('2025-11-20T00:00:00Z');
  // Unbounded: from the first month with views to the month before now.
  assert.deepEqual(monthsToSeal({ from: null, to: null }, firstDay, now), {
    from: utc('2025-11-01T00:00:00Z'),
    to: utc('2026-03-01T00:00:00Z'),
  });
  // Whole months inside the range only.
  assert.deepEqual(
    monthsToSeal({ from: utc('2025-12-15T00:00:00Z'), to: utc('2026-02-20T00:00:00Z') }, firstDay, now),
    {
      from: utc('2026-01-01T00:00:00Z'),
      to: utc('2026-02-01T00:00:00Z'),
    },
  );
  // No whole ended month: nothing to seal. No views: nothing either.
  assert.equal(monthsToSeal({ from: utc('2026-03-01T00:00:00Z'), to: null }, firstDay, now), null);
  assert.equal(monthsToSeal({ from: null, to: null }, null, now), null);
  // Views from year 1: the run is cut to the last 1,200 months.
  const run = monthsToSeal({ from: null, to: null }, utc('0001-01-01T00:00:00Z'), now)!;
  assert.deepEqual(run, {
    from: addMonths(utc('2026-03-01T00:00:00Z'), -1200),
    to: utc('2026-03-01T00:00:00Z'),
  });
});

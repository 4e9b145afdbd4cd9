// Splits an hour range into the coarsest buckets that tile it exactly: whole sealed UTC months in
// the middle, whole UTC days around them, and single hours at the edges. Reading a 30-day range
// then touches about 30 day rows (or one month row) per path instead of 720 hour rows, and the
// sums are the same, because every level holds exactly the sums of its hours. Pure logic, no I/O.

import { addMonths, ceilToDay, ceilToMonth, floorToDay, floorToMonth } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';

/** [from, to) in epoch seconds; null = unbounded on that side. Never empty. */
export interface Span {
  from: number | null;
  to: number | null;
}

/** A run of whole months, both ends on a month start. */
export interface MonthRun {
  from: number;
  to: number;
}

export interface RangeSplit {
  /** Read from the hourly level: a head and a tail, each under a day; or, for a range holding no
   * whole day, the whole range (under two days). */
  hours: Span[];
  /** Read from the daily level: at most two spans. */
  days: Span[];
  /** Read from the monthly level: at most one span, inside the sealed run given. */
  months: Span[];
}

/** [from, to) when both ends are known and it holds at least one instant. */
function edge(from: number | null, to: number | null): Span[] {
  return from !== null && to !== null && from < to ? [{ from, to }] : [];
}

/** Like edge, but a null end is unbounded: an empty list only when both ends are known and equal. */
function open(from: number | null, to: number | null): Span[] {
  return from !== null && to !== null && from >= to ? [] : [{ from, to }];
}

/**
 * The spans that tile range exactly; its bounds must lie on whole UTC hours. Months are read
 * only inside sealed (the months whose monthly rows exist); null reads every whole day as a day.
 */
export function splitRange(range: HourRange, sealed: MonthRun | null): RangeSplit {
  const dayFrom = range.from === null ? null : ceilToDay(range.from);
  const dayTo = range.to === null ? null : floorToDay(range.to);
  if (dayFrom !== null && dayTo !== null && dayFrom >= dayTo) {
    // No whole day inside: the range is hours only.
    return { hours: edge(range.from, range.to), days: [], months: [] };
  }
  const hours = [...edge(range.from, dayFrom), ...edge(dayTo, range.to)];
  if (sealed === null) return { hours, days: open(dayFrom, dayTo), months: [] };
  const monthFrom = Math.max(sealed.from, dayFrom === null ? Number.NEGATIVE_INFINITY : ceilToMonth(dayFrom));
  const monthTo = Math.min(sealed.to, dayTo === null ? Number.POSITIVE_INFINITY : floorToMonth(dayTo));
  if (monthFrom >= monthTo) return { hours, days: open(dayFrom, dayTo), months: [] };
  return {
    hours,
    days: [...open(dayFrom, monthFrom), ...open(monthTo, dayTo)],
    months: [{ from: monthFrom, to: monthTo }],
  };
}

/** The longest run of months sealed for one ranking: a century. */
export const MAX_SEALED_MONTHS = 1200;

/**
 * The months a ranking over range may read from the monthly level: the whole months inside it,
 * from the first month with views (firstDay, the earliest daily row; null when none), up to the
 * month containing now. Those are sealed first: a month still receiving views stays daily, so
 * writes into the current month never pay for a monthly row.
 */
export function monthsToSeal(
  range: HourRange,
  firstDay: number | null,
  now: number,
  maxMonths = MAX_SEALED_MONTHS,
): MonthRun | null {
  if (firstDay === null) return null;
  const dayFrom = range.from === null ? null : ceilToDay(range.from);
  const dayTo = range.to === null ? null : floorToDay(range.to);
  const from = Math.max(
    floorToMonth(firstDay),
    dayFrom === null ? Number.NEGATIVE_INFINITY : ceilToMonth(dayFrom),
  );
  const to = Math.min(floorToMonth(now), dayTo === null ? Number.POSITIVE_INFINITY : floorToMonth(dayTo));
  if (from >= to) return null;
  // Views dated centuries back (a stray log line) must not make one build seal thousands of
  // empty months: older months are read as days instead.
  return { from: Math.max(from, addMonths(to, -maxMonths)), to };
}

// Splits an hour range into the coarsest buckets that tile it exactly: whole UTC months in the
// middle, whole UTC days around them, and single hours at the edges. Reading a 30-day range then
// touches about 30 day rows (or one month row) per path instead of 720 hour rows, and the sums
// are the same, because every level holds exactly the sums of its hours. Pure logic, no I/O.

import type { HourRange } from './queries.ts';
import { ceilToDay, ceilToMonth, floorToDay, floorToMonth } from './time-buckets.ts';

/** [from, to) in epoch seconds; null = unbounded on that side. Never empty. */
export interface Span {
  from: number | null;
  to: number | null;
}

export interface RangeSplit {
  /** Read from the hourly level: at most a head and a tail, each under a day. */
  hours: Span[];
  /** Read from the daily level. */
  days: Span[];
  /** Read from the monthly level (empty unless months were asked for). */
  months: Span[];
}

/** [from, to) when both ends are known and it holds at least one instant. */
function edge(from: number | null, to: number | null): Span[] {
  return from !== null && to !== null && from < to ? [{ from, to }] : [];
}

/**
 * The spans that tile range exactly. range bounds must lie on whole UTC hours. With withMonths
 * false, whole months are read as days (levels that keep no monthly rows).
 */
export function splitRange(range: HourRange, withMonths: boolean): RangeSplit {
  const dayFrom = range.from === null ? null : ceilToDay(range.from);
  const dayTo = range.to === null ? null : floorToDay(range.to);
  if (dayFrom !== null && dayTo !== null && dayFrom >= dayTo) {
    // No whole day inside: the range is hours only.
    return { hours: edge(range.from, range.to), days: [], months: [] };
  }
  // From here on the days in the middle are not empty (either end may be unbounded).
  const hours = [...edge(range.from, dayFrom), ...edge(dayTo, range.to)];
  const middleDays: Span = { from: dayFrom, to: dayTo };
  if (!withMonths) return { hours, days: [middleDays], months: [] };

  const monthFrom = dayFrom === null ? null : ceilToMonth(dayFrom);
  const monthTo = dayTo === null ? null : floorToMonth(dayTo);
  if (monthFrom !== null && monthTo !== null && monthFrom >= monthTo) {
    return { hours, days: [middleDays], months: [] };
  }
  return {
    hours,
    days: [...edge(dayFrom, monthFrom), ...edge(monthTo, dayTo)],
    months: [{ from: monthFrom, to: monthTo }],
  };
}

/** Spans as two parallel arrays of bounds, for unnest() in SQL. */
export function spanBounds(spans: readonly Span[]): { froms: (number | null)[]; tos: (number | null)[] } {
  return { froms: spans.map((s) => s.from), tos: spans.map((s) => s.to) };
}

// UTC hour, day and calendar-month arithmetic on epoch seconds: the buckets every rollup level and
// export counts in. Pure logic, no I/O.

export const HOUR_SECONDS = 3600;
export const DAY_SECONDS = 86_400;

export function floorToDay(epochSeconds: number): number {
  return Math.floor(epochSeconds / DAY_SECONDS) * DAY_SECONDS;
}

export function ceilToDay(epochSeconds: number): number {
  const floor = floorToDay(epochSeconds);
  return floor === epochSeconds ? floor : floor + DAY_SECONDS;
}

/** The start of the UTC calendar month that contains the instant. */
export function floorToMonth(epochSeconds: number): number {
  const date = new Date(epochSeconds * 1000);
  const start = new Date(0);
  // setUTCFullYear keeps years 0-99 literal, where Date.UTC would map them to 1900-1999.
  start.setUTCFullYear(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return start.getTime() / 1000;
}

export function ceilToMonth(epochSeconds: number): number {
  const floor = floorToMonth(epochSeconds);
  return floor === epochSeconds ? floor : addMonths(floor, 1);
}

export function addMonths(monthStart: number, months: number): number {
  const date = new Date(monthStart * 1000);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.getTime() / 1000;
}

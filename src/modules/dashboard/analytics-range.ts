// The analytics page's date range: whole UTC days, both ends included (as people read a date
// range), turned into the export's dateFrom (inclusive) and dateTo (exclusive: the day after).
export interface DayRange {
  from: string;
  to: string;
  /** For the exports: dateFrom = from, dateTo = the day after to. */
  dateFrom: string;
  dateTo: string;
  days: number;
}

export type RangeResult = { ok: true; range: DayRange } | { ok: false; message: string; range: DayRange };

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseDay(text: unknown): number | null {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || isoDay(ms) !== text ? null : ms;
}

function build(fromMs: number, toMs: number): DayRange {
  return {
    from: isoDay(fromMs),
    to: isoDay(toMs),
    dateFrom: isoDay(fromMs),
    dateTo: isoDay(toMs + DAY_MS),
    days: Math.round((toMs - fromMs) / DAY_MS) + 1,
  };
}

/** The last `days` days up to and including today (UTC). */
export function lastDays(days: number, now = new Date()): DayRange {
  const today = Date.parse(`${isoDay(now.getTime())}T00:00:00Z`);
  return build(today - (days - 1) * DAY_MS, today);
}

export function dayRangeOf(query: { from?: unknown; to?: unknown }, now = new Date()): RangeResult {
  if (query.from === undefined && query.to === undefined) return { ok: true, range: lastDays(30, now) };
  const fallback = lastDays(30, now);
  const from = parseDay(query.from);
  const to = parseDay(query.to);
  if (from === null || to === null) {
    return { ok: false, message: 'Both dates must be calendar dates written YYYY-MM-DD.', range: fallback };
  }
  if (from > to)
    return { ok: false, message: 'The start date must not be after the end date.', range: fallback };
  return { ok: true, range: build(from, to) };
}

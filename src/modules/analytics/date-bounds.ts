// Parses the export's dateFrom/dateTo values and rounds them to the UTC hours counts are kept in.
// Pure logic, no I/O: see docs/analytics-export.md for the rules and why they were chosen.
//
// An instant is kept as whole epoch seconds plus nanoseconds, not a Date: a date-time may carry
// more than millisecond precision, and rounding dateTo up must not lose "one nanosecond past
// 10:00" by truncating it to 10:00.

export interface Instant {
  /** Whole seconds since 1970-01-01T00:00:00Z (negative before it). */
  epochSeconds: number;
  /** 0 to 999,999,999: the fraction of that second. */
  nanos: number;
}

export type ParsedBound = { ok: true; instant: Instant } | { ok: false; reason: string };

/** The formats the export accepts, for error messages and docs. */
export const ACCEPTED_DATE_FORMATS =
  'a date YYYY-MM-DD (UTC midnight) or an ISO 8601 date-time YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or an offset such as +02:00 (no offset means UTC)';

const HOUR = 3600;
// The range of instants accepted, in UTC: four-digit years, so every bound and its rounding
// stays a plain ISO 8601 timestamp (no year 0, no five-digit years).
const EARLIEST = -62135596800; // 0001-01-01T00:00:00Z
const LATEST = 253402214400; // 9999-12-31T00:00:00Z

// YYYY-MM-DD, optionally followed by THH:MM, :SS, a fraction of 1-9 digits, and an offset.
// The offset's sign may arrive as a space: an unencoded "+" in a query string decodes to one,
// and a space cannot mean anything else in that position.
const FORMAT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?)?$/;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date, by arithmetic (the civil-from-days
 * algorithm run backwards; years 0-99 stay literal): ingestion parses one timestamp per record,
 * and building a Date for each cost more than the rest of the parse.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Seconds since the epoch of a UTC calendar time. */
function utcEpochSeconds(year: number, month: number, day: number, h: number, m: number, s: number): number {
  return daysFromCivil(year, month, day) * 86400 + h * 3600 + m * 60 + s;
}

export function parseDateBound(text: string): ParsedBound {
  const match = FORMAT.exec(text);
  if (!match) return { ok: false, reason: 'not a recognised format' };
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);

  if (month < 1 || month > 12) return { ok: false, reason: `month ${mo} does not exist` };
  const monthDays = daysInMonth(year, month);
  if (day < 1 || day > monthDays) {
    return { ok: false, reason: `${MONTH_NAMES[month - 1]} ${y} has ${monthDays} days` };
  }
  if (hour > 23) return { ok: false, reason: 'the hour must be 00 to 23' };
  if (minute > 59) return { ok: false, reason: 'the minutes must be 00 to 59' };
  if (second > 59) return { ok: false, reason: 'the seconds must be 00 to 59' };

  let offsetSeconds = 0;
  if (sign !== undefined && zulu === undefined) {
    const offsetHours = Number(offH);
    const offsetMinutes = Number(offM ?? 0);
    if (offsetHours > 23 || offsetMinutes > 59) {
      return { ok: false, reason: 'the offset must be -23:59 to +23:59' };
    }
    offsetSeconds = (sign === '-' ? -1 : 1) * (offsetHours * HOUR + offsetMinutes * 60);
  }

  // A local time at +02:00 is two hours ahead of UTC: subtract the offset to get UTC.
  const epochSeconds = utcEpochSeconds(year, month, day, hour, minute, second) - offsetSeconds;
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, '0'));
  if (epochSeconds < EARLIEST || epochSeconds > LATEST || (epochSeconds === LATEST && nanos > 0)) {
    return { ok: false, reason: 'in UTC it must be from 0001-01-01 to 9999-12-31T00:00:00Z' };
  }
  return { ok: true, instant: { epochSeconds, nanos } };
}

/** Negative when a is earlier than b, 0 when equal, positive when later. */
export function compareInstants(a: Instant, b: Instant): number {
  return a.epochSeconds !== b.epochSeconds ? a.epochSeconds - b.epochSeconds : a.nanos - b.nanos;
}

/** The start of the UTC hour that contains the instant, in epoch seconds. */
export function floorToHour(instant: Instant): number {
  return Math.floor(instant.epochSeconds / HOUR) * HOUR;
}

/** The instant itself when it is exactly on a UTC hour, else the start of the next hour. */
export function ceilToHour(instant: Instant): number {
  const floor = floorToHour(instant);
  return floor === instant.epochSeconds && instant.nanos === 0 ? floor : floor + HOUR;
}

/** Epoch seconds as an ISO 8601 UTC string (2025-01-31T14:00:00.000Z). */
export function isoFromEpochSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

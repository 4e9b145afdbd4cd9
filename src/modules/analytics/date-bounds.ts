// Parses the export's dateFrom/dateTo values and rounds them to the UTC hours counts are kept in.
// Pure logic, no I/O: see docs/analytics-export.md for the rules and why they were chosen.
//
// An instant is kept as whole epoch seconds plus nanoseconds, not a Date: a date-time may carry
// more than millisecond precision, and rounding dateTo up must not lose "one nanosecond past
// 10:00" by truncating it to 10:00.

import { hourNumberOf } from '../../util/time.ts';

export interface Instant {
  /** Whole seconds since 1970-01-01T00:00:00Z (negative before it). */
  epochSeconds: number;
  /** 0 to 999,999,999: the fraction of that second. */
  nanos: number;
}

export type ParsedBound = { ok: true; instant: Instant } | { ok: false; reason: string };

// The formats the export accepts, in words (error messages and the API's documentation), are
// declared in the contract beside the query schemas that quote them.
export { ACCEPTED_DATE_FORMATS } from '../../contract/index.ts';

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

/** The value of the two ASCII digits at i and i + 1, or -1 when either is not a digit. */
function twoDigits(text: string, i: number): number {
  const tens = text.charCodeAt(i) - 48;
  const units = text.charCodeAt(i + 1) - 48;
  return tens >= 0 && tens <= 9 && units >= 0 && units <= 9 ? tens * 10 + units : -1;
}

/** parseCommonTimestampMillis's answer for anything but the common form. */
const NOT_COMMON = Number.NaN;

// The day of the last timestamp read, with its days since the epoch: a batch's records nearly
// all fall on one day, so the calendar arithmetic is done once per day seen, not per record.
let lastDay = { year: 1970, month: 1, day: 1, epochDays: 0 };

/**
 * Seconds to add to a local time to get UTC, for a time zone suffix `Z` or `±HH:MM` that ends at
 * `end`; NaN for any other suffix (or an offset past 23:59).
 */
function zoneOffsetSeconds(text: string, zoneStart: number): number {
  if (zoneStart === text.length - 1)
    return (text.charCodeAt(zoneStart) | 0x20) === 122 /* Z or z */ ? 0 : NOT_COMMON;
  const sign = text.charCodeAt(zoneStart);
  const hours = twoDigits(text, zoneStart + 1);
  const minutes = twoDigits(text, zoneStart + 4);
  if ((sign !== 43 /* + */ && sign !== 45) /* - */ || text.charCodeAt(zoneStart + 3) !== 58 /* : */) {
    return NOT_COMMON;
  }
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59) return NOT_COMMON;
  // A local time at +02:00 is two hours ahead of UTC: the offset is subtracted.
  return (sign === 45 ? 1 : -1) * (hours * 3600 + minutes * 60);
}

/**
 * Milliseconds since the epoch of a timestamp in the forms nearly every ingested record uses,
 * `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or `±HH:MM`, read by character codes: ingestion
 * parses one per record and the regular expression of parseDateBound was a visible share of its
 * CPU. For anything else (no seconds, a date alone, other offset spellings, a day or time that
 * does not exist, the years 0000, 0001 with an offset, and 9999) the answer is NaN and the caller
 * asks parseDateBound, which accepts or explains. Where a number is returned it equals what
 * parseDateBound's instant gives, truncated to milliseconds.
 */
export function parseCommonTimestampMillis(text: string): number {
  return readCommonTimestamp(text) ? parsedMillis[0]! : NOT_COMMON;
}

/**
 * The hour (hours since the epoch: hourNumberOf) of a timestamp of the common form
 * (parseCommonTimestampMillis) that is at most `aheadMs` after `baseMs`; NaN for anything else
 * (the caller asks parseDateBound; hours before 1970 are negative). Ingest reads one per record: the milliseconds stay in a
 * typed array and a local, so no heap number is made per record for them (docs/ingestion.md,
 * "Fewer allocations per record").
 */
export function commonTimestampHour(text: string, baseMs: number, aheadMs: number): number {
  if (!readCommonTimestamp(text)) return NOT_COMMON;
  const atMs = parsedMillis[0]!;
  return atMs <= baseMs + aheadMs ? hourNumberOf(atMs) : NOT_COMMON;
}

/** Where readCommonTimestamp puts its answer: a typed array's element holds a double unboxed. */
const parsedMillis = new Float64Array(1);

/** Reads a common timestamp's milliseconds into parsedMillis[0]; false when it is not of that form. */
function readCommonTimestamp(text: string): boolean {
  const length = text.length;
  // The zone is `Z` (1 character) or `±HH:MM` (6); 19 characters of date and time come first.
  const zoneStart = (text.charCodeAt(length - 1) | 0x20) === 122 /* Z or z */ ? length - 1 : length - 6;
  // Between time and zone: nothing, or a separator and 1 to 9 digits.
  const fractionDigits = zoneStart - 20;
  if (zoneStart !== 19 && (fractionDigits < 1 || fractionDigits > 9)) return false;
  const centuries = twoDigits(text, 0);
  const yearInCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (
    centuries < 0 ||
    yearInCentury < 0 ||
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 /* - */ ||
    (text.charCodeAt(10) | 0x20) !== 116 /* T or t */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58 /* : */
  ) {
    return false;
  }
  const offsetSeconds = zoneOffsetSeconds(text, zoneStart);
  const year = centuries * 100 + yearInCentury;
  // The edges of the accepted range (0001-01-01 and 9999-12-31 in UTC) are parseDateBound's to
  // decide: an offset can move a time in those years across them.
  const firstYear = offsetSeconds === 0 ? 1 : 2;
  if (
    Number.isNaN(offsetSeconds) ||
    year < firstYear ||
    year > 9998 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month)
  ) {
    return false;
  }
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let millis = 0;
  if (zoneStart !== 19) {
    const separator = text.charCodeAt(19);
    if (separator !== 46 /* . */ && separator !== 44 /* , */) return false;
    // The fraction's first three digits are the milliseconds; the rest only need to be digits.
    let scale = 100;
    for (let i = 20; i < zoneStart; i++) {
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return false;
      millis += digit * scale;
      scale = scale === 1 ? 0 : scale / 10;
    }
  }
  if (year !== lastDay.year || month !== lastDay.month || day !== lastDay.day) {
    lastDay = { year, month, day, epochDays: daysFromCivil(year, month, day) };
  }
  const epochSeconds = lastDay.epochDays * 86400 + hour * 3600 + minute * 60 + second + offsetSeconds;
  parsedMillis[0] = epochSeconds * 1000 + millis;
  return true;
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

// Request times as logs write them, to milliseconds since the epoch (null when unreadable).
// A log without a readable time cannot be imported: counting its line "now" would put old
// traffic in the wrong hour, so the caller reports it as malformed instead.

const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

// nginx $time_local and Apache %t: 10/Oct/2000:13:55:36 -0700
const CLF_TIME =
  /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? ([+-])(\d{2})(\d{2})$/;

export function parseClfTime(text: string): number | null {
  const m = CLF_TIME.exec(text);
  if (!m) return null;
  const month = MONTHS[m[2]!];
  if (month === undefined) return null;
  const [day, year, hour, minute, second] = [m[1], m[3], m[4], m[5], m[6]].map(Number) as number[];
  if (day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || second! > 60) return null;
  const fraction = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  const offsetMinutes = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  const utc = Date.UTC(year!, month, day!, hour!, minute!, second!, fraction);
  const date = new Date(utc);
  if (date.getUTCDate() !== day) return null; // 31/Feb
  return utc - offsetMinutes * 60_000;
}

// ISO 8601 / RFC 3339, and the "2019-12-04 21:02:31" of CloudFront's date + time. A time without
// an offset is taken as UTC (what CDNs write), never as this machine's local time.
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

export function parseIsoTime(text: string): number | null {
  const m = ISO_TIME.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const fraction = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes =
      (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
  if (new Date(utc).getUTCDate() !== day) return null;
  return utc - offsetMinutes * 60_000;
}

/**
 * Epoch numbers in the unit their size suggests: seconds (Cloudflare "unix", CloudFront
 * "timestamp"), milliseconds (Vercel), microseconds, or nanoseconds (Cloudflare's default
 * "unixnano"). Any time from March 1973 to the year 5000 is read correctly whatever its unit.
 */
export function parseEpoch(value: number): number | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  if (value < 1e11) return Math.round(value * 1000);
  if (value < 1e14) return Math.round(value);
  if (value < 1e17) return Math.round(value / 1000);
  return Math.round(value / 1e6);
}

/** A time field of a JSON log line: epoch number, digits, ISO 8601, or the access-log form. */
export function parseTimeValue(value: unknown): number | null {
  if (typeof value === 'number') return parseEpoch(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseEpoch(Number(text));
  return parseIsoTime(text) ?? parseClfTime(text.replace(/^\[|\]$/g, ''));
}

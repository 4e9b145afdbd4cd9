// JSON lines: one JSON object per line, its fields named by a mapping from the request-record
// fields docwright reads to the keys of the log. A key may be a dotted path into nested objects
// ("proxy.userAgent"), and several keys joined by "+" are joined with a space ("date+time", for
// CloudFront's separate date and time). Without a mapping the record fields are read by their own
// names, so the ingest API's NDJSON imports as it is.
import type { RequestRecord } from '../classification/types.ts';
import type { ParsedLine } from './parsed-line.ts';
import { parseTimeValue } from './timestamps.ts';

export const RECORD_FIELDS = [
  'timestamp',
  'url',
  'path',
  'method',
  'status',
  'userAgent',
  'ip',
  'accept',
  'referrer',
] as const;
export type RecordField = (typeof RECORD_FIELDS)[number];
export type FieldMap = Partial<Record<RecordField, string>>;

export const IDENTITY_MAP: Required<FieldMap> = Object.fromEntries(
  RECORD_FIELDS.map((field) => [field, field]),
) as Required<FieldMap>;

/** Reads one key or dotted path; a literal key containing dots wins over the path. */
function lookup(object: Record<string, unknown>, key: string): unknown {
  if (key in object) return object[key];
  let value: unknown = object;
  for (const part of key.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function read(object: Record<string, unknown>, spec: string): unknown {
  if (!spec.includes('+')) return lookup(object, spec);
  const parts = spec.split('+').map((key) => lookup(object, key));
  if (parts.some((part) => part === undefined || part === null)) return undefined;
  return parts.map(String).join(' ');
}

/** A text value: strings as they are, numbers as digits, the first of an array (Vercel's userAgent). */
function text(value: unknown): string | undefined {
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'string') return value === '' || value === '-' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Some CDNs write the user agent percent-encoded (CloudFront: "Mozilla/5.0%20(Windows...").
 * Agent tokens are matched as whole words, which "%20GPTBot" would hide, so an agent string
 * without a single space but with %20 is decoded.
 */
function userAgentText(value: unknown): string | undefined {
  const raw = text(value);
  if (raw === undefined || raw.includes(' ') || !raw.includes('%20')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw.replaceAll('%20', ' ');
  }
}

function statusValue(value: unknown): number | undefined | null {
  if (value === undefined || value === null || value === '' || value === '-') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  return Number.isInteger(n) && n >= 100 && n <= 999 ? n : null;
}

export function parseJsonLine(line: string, map: Required<FieldMap>): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { malformed: 'not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { malformed: 'not a JSON object' };
  }
  const object = value as Record<string, unknown>;
  const record: RequestRecord = {};
  const url = text(read(object, map.url));
  const path = text(read(object, map.path));
  if (url !== undefined) record.url = url;
  if (path !== undefined) record.path = path;
  const method = text(read(object, map.method));
  if (method !== undefined) record.method = method;
  const status = statusValue(read(object, map.status));
  if (status === null) return { malformed: `unreadable status in "${map.status}"` };
  if (status !== undefined) record.status = status;
  const userAgent = userAgentText(read(object, map.userAgent));
  if (userAgent !== undefined) record.userAgent = userAgent;
  for (const field of ['ip', 'accept', 'referrer'] as const) {
    const fieldText = text(read(object, map[field]));
    if (fieldText !== undefined) record[field] = fieldText;
  }
  // A line without a page (a Vercel build log, a Cloudflare worker event) is not a request: the
  // pipeline drops it as path_missing, whatever its time.
  const rawTime = read(object, map.timestamp);
  const at = parseTimeValue(rawTime);
  if (at === null && (url !== undefined || path !== undefined)) {
    return {
      malformed:
        rawTime === undefined || rawTime === null
          ? `no time in "${map.timestamp}"`
          : `unreadable time in "${map.timestamp}"`,
    };
  }
  if (at !== null) record.timestamp = new Date(at);
  return { record, at: at ?? 0 };
}

// Checks one incoming record and turns it into the classification pipeline's RequestRecord.
// A record that fails is rejected alone, with a code and a message naming the field; the rest
// of its batch goes on. Wrong types are refused here (the pipeline itself would ignore them):
// a sender with a bug should hear about it, not see its views silently change class.
import { Compile } from 'typebox/compile';
import { IngestRecordSchema, MAX_FUTURE_MS } from '../../../contract/index.ts';
import type { RequestRecord } from '../classification/types.ts';
import { parseDateBound } from '../date-bounds.ts';

export type RecordRejectionCode =
  | 'invalid_json'
  | 'invalid_record'
  | 'missing_path'
  | 'invalid_field'
  | 'invalid_timestamp'
  | 'timestamp_in_future';

/** Each code with when it is given, for docs/ingestion.md (a test keeps the two in step). */
export const RECORD_REJECTIONS: Record<RecordRejectionCode, string> = {
  invalid_json: 'An NDJSON line is not valid JSON.',
  invalid_record: 'The record is not a JSON object (an array, a string, a number or null).',
  missing_path: 'Neither url nor path is given as a non-blank string.',
  invalid_field:
    'A field has the wrong type (a number as a string, a header value that is not a string), a status outside 100-599, or a string holding the NUL character; the message names the field.',
  invalid_timestamp:
    'timestamp is not ISO 8601 (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or an offset), names a day that does not exist, or lies outside the years 0001-9999.',
  timestamp_in_future: 'timestamp is more than 5 minutes ahead of the server clock.',
};

/** An NDJSON line that did not parse: kept in its place so the batch's indexes stay right. */
export class MalformedLine {
  readonly line: number;
  readonly reason: string;
  constructor(line: number, reason: string) {
    this.line = line;
    this.reason = reason;
  }
}

export type RecordCheck =
  | { ok: true; record: RequestRecord; atMs: number }
  | { ok: false; code: RecordRejectionCode; message: string };

const recordValidator = Compile(IngestRecordSchema);
const TEXT_FIELDS = ['url', 'path', 'timestamp', 'userAgent', 'ip', 'accept', 'referrer', 'method'] as const;

function reject(code: RecordRejectionCode, message: string): RecordCheck {
  return { ok: false, code, message };
}

/** A short, safe rendering of what the sender gave, for messages. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 60)}...` : json;
}

function typeError(value: Record<string, unknown>): RecordCheck {
  const [first] = recordValidator.Errors(value);
  if (first === undefined) return reject('invalid_field', 'The record does not have the documented shape.');
  // JSON Pointer to a dotted name: /headers/signature-input → headers.signature-input
  const segments = first.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  let given: unknown = value;
  for (const segment of segments) given = (given as Record<string, unknown> | undefined)?.[segment];
  return reject('invalid_field', `Field "${segments.join('.')}" ${first.message}; got ${shown(given)}.`);
}

function isBlank(text: unknown): boolean {
  return typeof text !== 'string' || text.trim() === '';
}

/** receivedAtMs is when the batch arrived: the default time, and "now" for the future check. */
export function validateRecord(value: unknown, receivedAtMs: number): RecordCheck {
  if (value instanceof MalformedLine) {
    return reject('invalid_json', `Line ${value.line} is not valid JSON: ${value.reason}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return reject('invalid_record', `A record must be a JSON object; got ${shown(value)}.`);
  }
  const fields = value as Record<string, unknown>;
  if (!recordValidator.Check(fields)) return typeError(fields);
  for (const name of TEXT_FIELDS) {
    const text = fields[name];
    // PostgreSQL text cannot hold NUL: refused here, or it would fail the shared commit.
    if (typeof text === 'string' && text.includes('\0')) {
      return reject('invalid_field', `Field "${name}" must not contain the NUL character (\\u0000).`);
    }
  }
  const headers = fields.headers as Record<string, string> | undefined;
  for (const name in headers) {
    if (name.includes('\0') || headers[name]!.includes('\0')) {
      return reject('invalid_field', 'Field "headers" must not contain the NUL character (\\u0000).');
    }
  }
  if (isBlank(fields.url) && isBlank(fields.path)) {
    return reject('missing_path', 'Field "url" or "path" is required (a non-blank string).');
  }

  let atMs = receivedAtMs;
  if (fields.timestamp !== undefined) {
    const timestamp = fields.timestamp as string;
    const parsed = parseDateBound(timestamp);
    if (!parsed.ok) {
      return reject(
        'invalid_timestamp',
        `Field "timestamp" is not a usable ISO 8601 time (${parsed.reason}); got ${shown(timestamp)}.`,
      );
    }
    atMs = parsed.instant.epochSeconds * 1000 + Math.floor(parsed.instant.nanos / 1e6);
    if (atMs > receivedAtMs + MAX_FUTURE_MS) {
      return reject(
        'timestamp_in_future',
        `Field "timestamp" is more than 5 minutes ahead of the server clock (${new Date(receivedAtMs).toISOString()}); got ${shown(timestamp)}.`,
      );
    }
  }

  // Only the known fields go on, and a blank path does not hide a usable url (path wins).
  const record: RequestRecord = { timestamp: new Date(atMs) };
  if (!isBlank(fields.path)) record.path = fields.path as string;
  else if (!isBlank(fields.url)) record.url = fields.url as string;
  if (fields.userAgent !== undefined) record.userAgent = fields.userAgent as string;
  if (fields.ip !== undefined) record.ip = fields.ip as string;
  if (fields.accept !== undefined) record.accept = fields.accept as string;
  if (fields.referrer !== undefined) record.referrer = fields.referrer as string;
  if (fields.method !== undefined) record.method = fields.method as string;
  if (fields.status !== undefined) record.status = fields.status as number;
  if (fields.headers !== undefined) record.headers = fields.headers as Record<string, string>;
  return { ok: true, record, atMs };
}

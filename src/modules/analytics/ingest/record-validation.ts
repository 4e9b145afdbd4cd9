// Checks one incoming record and turns it into the classification pipeline's RequestRecord.
// A record that fails is rejected alone, with a code and a message naming the field; the rest
// of its batch goes on. Wrong types are refused here (the pipeline itself would ignore them):
// a sender with a bug should hear about it, not see its views silently change class.
import { Compile } from 'typebox/compile';
import {
  DEFAULT_MCP_METHOD,
  DEFAULT_MCP_PATH,
  IngestRecordSchema,
  isViewFormat,
  MAX_FUTURE_MS,
  MCP_FIELD_LIMITS,
  VIEW_FORMATS,
  type ViewFormat,
} from '../../../contract/index.ts';
import type { RequestRecord } from '../classification/types.ts';
import { parseDateBound } from '../date-bounds.ts';
import type { McpCall } from '../store/index.ts';

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
  missing_path: 'Neither url nor path is given as a non-blank string (MCP records need neither).',
  invalid_field:
    'A field has the wrong type (a number as a string, a header value that is not a string), a status outside 100-599, a string holding the NUL character, a type other than view or mcp, a format other than html, markdown, llms or mcp, or an MCP field that is too long, holds a control character or is missing (tool, for tools/call); the message names the field.',
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
  | {
      ok: true;
      record: RequestRecord;
      atMs: number;
      /** The format the record names; null: worked out from its path and Accept header. */
      format: ViewFormat | null;
      /** The call of an MCP record (its format is mcp); null for a view record. */
      mcp: McpCall | null;
    }
  | { ok: false; code: RecordRejectionCode; message: string };

const recordValidator = Compile(IngestRecordSchema);
const TEXT_FIELDS = [
  'url',
  'path',
  'timestamp',
  'userAgent',
  'ip',
  'accept',
  'referrer',
  'method',
  'tool',
  'clientName',
  'clientVersion',
] as const;
// C0 and C1 control characters (NUL is refused with its own message first).
// biome-ignore lint/suspicious/noControlCharactersInRegex: this finds them.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MCP_METHOD = new RegExp(`^[A-Za-z][A-Za-z0-9/_.-]{0,${MCP_FIELD_LIMITS.method - 1}}$`);

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
  // The enumerations first, with messages that list what is accepted.
  const kind = fields.type;
  if (kind !== undefined && kind !== 'view' && kind !== 'mcp') {
    return reject('invalid_field', `Field "type" must be "view" or "mcp"; got ${shown(kind)}.`);
  }
  if (fields.format !== undefined && !isViewFormat(fields.format)) {
    return reject(
      'invalid_field',
      `Field "format" must be one of ${VIEW_FORMATS.join(', ')}; got ${shown(fields.format)}.`,
    );
  }
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
  const mcp = kind === 'mcp' ? mcpCallOf(fields) : null;
  if (mcp !== null && 'message' in mcp) return reject('invalid_field', mcp.message);
  if (mcp === null && isBlank(fields.url) && isBlank(fields.path)) {
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
  else record.path = DEFAULT_MCP_PATH; // an MCP record (checked above)
  if (fields.userAgent !== undefined) record.userAgent = fields.userAgent as string;
  if (fields.ip !== undefined) record.ip = fields.ip as string;
  if (fields.referrer !== undefined) record.referrer = fields.referrer as string;
  if (fields.headers !== undefined) record.headers = fields.headers as Record<string, string>;
  if (mcp !== null) {
    // An MCP call is not an HTTP request for a page: its method is the MCP one, and neither an
    // HTTP status nor an Accept header says anything about how it was served.
    return { ok: true, record, atMs, format: 'mcp', mcp };
  }
  if (fields.accept !== undefined) record.accept = fields.accept as string;
  if (fields.method !== undefined) record.method = fields.method as string;
  if (fields.status !== undefined) record.status = fields.status as number;
  const format = (fields.format as ViewFormat | undefined) ?? null;
  return { ok: true, record, atMs, format, mcp: null };
}

/** The call an MCP record names, or what is wrong with its fields (types were checked). */
function mcpCallOf(fields: Record<string, unknown>): McpCall | { message: string } {
  if (fields.format !== undefined && fields.format !== 'mcp') {
    return {
      message: `Field "format" must be mcp on an MCP record (or left out); got ${shown(fields.format)}.`,
    };
  }
  const method = (fields.method as string | undefined) ?? DEFAULT_MCP_METHOD;
  if (!MCP_METHOD.test(method)) {
    return {
      message: `Field "method" of an MCP record must be an MCP method such as tools/call: a letter, then letters, digits or / _ . -, at most ${MCP_FIELD_LIMITS.method} characters; got ${shown(method)}.`,
    };
  }
  for (const name of ['tool', 'clientName', 'clientVersion'] as const) {
    const text = fields[name] as string | undefined;
    if (text !== undefined && CONTROL.test(text)) {
      return { message: `Field "${name}" must not contain control characters; got ${shown(text)}.` };
    }
  }
  const tool = (fields.tool as string | undefined) ?? '';
  if (method === 'tools/call' && tool.trim() === '') {
    return {
      message: 'Field "tool" is required on an MCP record whose method is tools/call (a non-blank string).',
    };
  }
  return {
    method,
    tool,
    clientName: (fields.clientName as string | undefined) ?? '',
    clientVersion: (fields.clientVersion as string | undefined) ?? '',
  };
}

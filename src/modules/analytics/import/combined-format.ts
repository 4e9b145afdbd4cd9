// The NCSA combined log format, as nginx ("combined") and Apache (%h %l %u %t "%r" %>s %b
// "%{Referer}i" "%{User-agent}i") write it:
//   203.0.113.9 - - [10/Oct/2000:13:55:36 -0700] "GET /guide HTTP/1.1" 200 2326 "https://ex.com/" "Mozilla/5.0 ..."
// The common log format (the same without referrer and user agent) is read too, and fields that
// nginx configurations add after the user agent ("$http_x_forwarded_for", timings) are ignored.
import type { RequestRecord } from '../classification/types.ts';
import type { ParsedLine } from './parsed-line.ts';
import { parseClfTime } from './timestamps.ts';

// A quoted field: anything but a quote, or a backslash escape (Apache writes \" and \\; nginx
// writes \x22 for a quote).
const QUOTED = '"((?:[^"\\\\]|\\\\.)*)"';
const LINE = new RegExp(
  `^(\\S+) \\S+ \\S+ \\[([^\\]]+)\\] ${QUOTED} (\\d{3}|-) (?:\\d+|-)(?: ${QUOTED} ${QUOTED})?(?:\\s.*)?$`,
);

/** Undoes the escapes Apache and nginx write inside quoted fields (\" \\ \xHH, as UTF-8 bytes). */
export function unescapeLogField(text: string): string {
  if (!text.includes('\\')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
        bytes.push(Number.parseInt(text.slice(i + 2, i + 4), 16));
        i += 3;
        continue;
      }
      if (next === '"' || next === '\\') {
        bytes.push(next.charCodeAt(0));
        i += 1;
        continue;
      }
      if (next === 't' || next === 'n') {
        bytes.push(next === 't' ? 0x09 : 0x0a);
        i += 1;
        continue;
      }
    }
    // Characters above ASCII are re-encoded so that escaped and literal UTF-8 bytes mix correctly.
    if (c < 0x80) bytes.push(c);
    else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const dash = (value: string | undefined): string | undefined =>
  value === undefined || value === '-' || value === '' ? undefined : unescapeLogField(value);

/** "GET /guide HTTP/1.1" → method and target; a request line that is not one leaves both out. */
function requestLine(text: string): Pick<RequestRecord, 'method' | 'path'> {
  const m = /^([A-Za-z]+) (\S+)(?: HTTP\/[0-9.]+)?$/.exec(text);
  return m ? { method: m[1]!, path: m[2]! } : {};
}

export function parseCombinedLine(line: string): ParsedLine {
  const m = LINE.exec(line);
  if (!m) return { malformed: 'not in the combined or common log format' };
  const at = parseClfTime(m[2]!);
  if (at === null) return { malformed: `unreadable time [${m[2]!.slice(0, 40)}]` };
  const record: RequestRecord = {
    ...requestLine(unescapeLogField(m[3]!)),
    timestamp: new Date(at),
    ip: m[1]!,
  };
  if (m[4] !== '-') record.status = Number(m[4]);
  const referrer = dash(m[5]);
  const userAgent = dash(m[6]);
  if (referrer !== undefined) record.referrer = referrer;
  if (userAgent !== undefined) record.userAgent = userAgent;
  return { record, at };
}

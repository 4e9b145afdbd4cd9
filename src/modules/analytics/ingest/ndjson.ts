// NDJSON (application/x-ndjson): one JSON value per line. A line that does not parse becomes a
// MalformedLine in its place, so only that record is rejected and the others keep their index.
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../util/json-depth.ts';
import { MalformedLine } from './record-validation.ts';

export interface NdjsonItems {
  /** The values of the first `limit` non-blank lines. */
  items: unknown[];
  /** Non-blank lines in all: beyond `limit` they are counted, not parsed. */
  lines: number;
}

/** Blank lines (and a trailing newline) are skipped; `\r\n` line ends are accepted. */
export function parseNdjson(text: string, limit: number): NdjsonItems {
  const items: unknown[] = [];
  let lineNumber = 0;
  let lines = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '') continue;
    lines++;
    if (lines > limit) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      // V8 adds its own position within the line, which reads oddly next to our line number.
      const reason = (error as Error).message.replace(/ \(line \d+ column \d+\)$/, '');
      items.push(new MalformedLine(lineNumber, reason));
      continue;
    }
    // A line nested too deep is refused alone, like a line that does not parse (a NUL is the
    // record's own fault, found by record-validation.ts).
    items.push(
      exceedsJsonDepth(value)
        ? new MalformedLine(lineNumber, `nested more than ${MAX_JSON_DEPTH} levels deep`)
        : value,
    );
  }
  return { items, lines };
}

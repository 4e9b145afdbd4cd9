// NDJSON (application/x-ndjson): one JSON value per line. A line that does not parse becomes a
// MalformedLine in its place, so only that record is rejected and the others keep their index.
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../util/json-depth.ts';
import { linePieces } from './body-pieces.ts';
import { MalformedLine } from './record-validation.ts';

export interface NdjsonItems {
  /** The values of the first `limit` non-blank lines. */
  items: unknown[];
  /** Non-blank lines in all: beyond `limit` they are counted, not parsed. */
  lines: number;
}

/**
 * Blank lines (and a trailing newline) are skipped; `\r\n` line ends are accepted. A body given
 * as bytes is decoded in pieces cut at line feeds (body-pieces.ts), which reads the same lines.
 */
export function parseNdjson(body: string | Buffer, limit: number): NdjsonItems {
  const reader = new NdjsonReader(limit);
  if (typeof body === 'string') reader.read(body);
  else for (const piece of linePieces(body)) reader.read(piece);
  return { items: reader.items, lines: reader.lines };
}

/** Reads lines piece after piece, numbering them across pieces. */
class NdjsonReader {
  readonly items: unknown[] = [];
  lines = 0;
  #lineNumber = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Every line of `text`, its last one included (a piece ends where a line does). */
  read(text: string): void {
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      this.#lineNumber++;
      const line = text.slice(start, end).trim();
      start = end + 1;
      if (line === '') continue;
      this.lines++;
      if (this.lines > this.#limit) continue;
      this.items.push(parseLine(line, this.#lineNumber));
    }
  }
}

function parseLine(line: string, lineNumber: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    // V8 adds its own position within the line, which reads oddly next to our line number.
    const reason = (error as Error).message.replace(/ \(line \d+ column \d+\)$/, '');
    return new MalformedLine(lineNumber, reason);
  }
  // A line nested too deep is refused alone, like a line that does not parse (a NUL is the
  // record's own fault, found by record-validation.ts).
  return exceedsJsonDepth(value)
    ? new MalformedLine(lineNumber, `nested more than ${MAX_JSON_DEPTH} levels deep`)
    : value;
}

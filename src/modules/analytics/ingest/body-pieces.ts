// Decoding a large batch body in pieces. V8 keeps a string longer than about 128 KiB (64 Ki
// characters once any is beyond Latin-1) in its large-object space: every such string is a fresh
// memory mapping of its own, faulted in page by page and unmapped when it is collected. A
// 150 KB batch decoded into one string costs about 100 µs that way, most of it in the kernel,
// against about 10 µs for the same bytes in pieces below the limit (docs/ingestion.md, "Batch
// bodies in pieces"). So a body longer than PIECE_BYTES is cut at record boundaries, each piece
// decoded and parsed alone, and the values joined.
//
// Cutting only at ASCII bytes keeps UTF-8 decoding the same as the whole body's: no multi-byte
// sequence holds an ASCII byte, and a decoder starts afresh after one.

/**
 * Where a piece may end, at the earliest: far enough below the large-object limit that the
 * record that ends the piece still fits when the piece decodes to two-byte characters.
 */
export const PIECE_BYTES = 48 * 1024;

const CLOSE_THEN_COMMA = Buffer.from('},');
const OPEN_BRACE = 0x7b;
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf] as const;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;

/** JSON's own whitespace: space, tab, line feed, carriage return. */
function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Where the next piece ends: at `separator` found at least PIECE_BYTES in, or at `end`. */
function pieceEnd(body: Buffer, start: number, end: number, separator: number): number {
  if (end - start <= PIECE_BYTES) return end;
  const at = body.indexOf(separator, start + PIECE_BYTES);
  return at === -1 || at >= end ? end : at;
}

/**
 * How many `},` a body may hold that are not followed by `{` (inside its records) before the rest
 * of it is read as one piece: each costs a search and a few reads, so a body made of them (a
 * megabyte of `},` in a string) costs at most this many, not one per two bytes.
 */
const MAX_MISSES = 1000;

/**
 * Where the next piece of an array ends: at a `}` at least PIECE_BYTES in that a `,` and then,
 * after any JSON whitespace, a `{` follow (`},{` compact, `}, {` as Python writes it, or pretty
 * printed), or at `end`. `misses` counts the body's `},` that were not such a place.
 */
function recordEnd(body: Buffer, start: number, end: number, misses: { count: number }): number {
  if (end - start <= PIECE_BYTES) return end;
  for (let from = start + PIECE_BYTES; misses.count < MAX_MISSES; misses.count++) {
    const at = body.indexOf(CLOSE_THEN_COMMA, from);
    if (at === -1 || at >= end) return end;
    let next = at + 2;
    while (isJsonSpace(body[next])) next++;
    if (body[next] === OPEN_BRACE) return at;
    from = at + 2;
  }
  return end;
}

/**
 * A JSON array body's values, parsed piece by piece, when the body is longer than PIECE_BYTES and
 * is an array (after an optional byte order mark and JSON whitespace); otherwise undefined, and
 * the caller parses the whole text. Also undefined when a piece does not parse: the body is not
 * valid JSON, or a cut fell inside a string that holds `},{` (or `}, {`). The whole text's parse
 * then gives the value or the error, so this never decides what a body means, only how cheaply.
 *
 * Why a piece that parses was cut between two records: a piece is the body's own text from just
 * after `[` or a cut's `,` up to and including a `}`, read as `[` + text + `]`. A parser reading it
 * is in the state the whole body's parse is in at that point (an array expecting a value), so it
 * can end there only if the whole parse, at the cut, has just finished an element of the outer
 * array: inside a string, an object or a nested array, the added `]` cannot close the text.
 */
export function parseJsonArrayInPieces(body: Buffer): unknown[] | undefined {
  if (body.length <= PIECE_BYTES) return undefined;
  let first =
    body[0] === BYTE_ORDER_MARK[0] && body[1] === BYTE_ORDER_MARK[1] && body[2] === BYTE_ORDER_MARK[2]
      ? 3
      : 0;
  while (isJsonSpace(body[first])) first++;
  let last = body.length - 1;
  while (last > first && isJsonSpace(body[last])) last--;
  if (body[first] !== OPEN_BRACKET || body[last] !== CLOSE_BRACKET) return undefined;

  const values: unknown[] = [];
  const misses = { count: 0 };
  let start = first + 1;
  while (start < last) {
    const cut = recordEnd(body, start, last, misses);
    // The piece keeps the `}` that ends its last record; the next starts after the `,` (any
    // whitespace before its `{` is the parser's to skip).
    const stop = cut === last ? last : cut + 1;
    let piece: unknown[];
    try {
      piece = JSON.parse(`[${body.toString('utf8', start, stop)}]`) as unknown[];
    } catch {
      return undefined;
    }
    for (let i = 0; i < piece.length; i++) values.push(piece[i]);
    start = stop + 1;
  }
  return values;
}

/**
 * The body's text in pieces cut at line feeds (each cut's `\n` dropped), for a line reader that
 * reads each piece's last line as a whole line. A body of PIECE_BYTES or less is one piece.
 */
export function linePieces(body: Buffer): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (;;) {
    const end = pieceEnd(body, start, body.length, NEWLINE);
    pieces.push(body.toString('utf8', start, end));
    if (end === body.length) return pieces;
    start = end + 1;
  }
}

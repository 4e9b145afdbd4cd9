// A large batch body is decoded and parsed in pieces (body-pieces.ts) only to spare V8's
// large-object space: the pieces must never change what a body means. Each test compares the
// pieces against the whole text's parse, on bodies long enough to be cut, with the bytes that
// could fool a cut: `},{`, `}, {` and line feeds inside strings, characters beyond ASCII (and
// invalid UTF-8) next to a cut, whitespace, byte order marks and broken bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  linePieces,
  PIECE_BYTES,
  parseJsonArrayInPieces,
} from '../../src/modules/analytics/ingest/body-pieces.ts';
import { parseNdjson } from '../../src/modules/analytics/ingest/ndjson.ts';

/** Text that tries to look like a record boundary, or like a line's end, from inside a string. */
const trickyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('},{', '"},{"', '}, {', '\n', '\r\n', 'é', '日本', '😀', '\\', '"', ']', '['),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

const record = fc.record({
  path: fc.oneof(fc.constant('/docs/start'), trickyText),
  userAgent: trickyText,
  extra: fc.option(fc.oneof(fc.array(fc.record({ k: trickyText })), fc.dictionary(fc.string(), trickyText)), {
    nil: undefined,
  }),
});

/** A record with `bytes` of filler, so that a few dozen of them are longer than PIECE_BYTES. */
function padded(value: object, bytes: number): object {
  return { ...value, pad: 'x'.repeat(bytes) };
}

type Spacing = 'compact' | 'python' | 'pretty';

/** JSON as Python's json.dumps writes it by default: `, ` and `: ` between items. */
function pythonStyle(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonStyle).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonStyle(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

function textOf(value: unknown, spacing: Spacing): string {
  if (spacing === 'python') return pythonStyle(value);
  return spacing === 'compact' ? JSON.stringify(value) : JSON.stringify(value, null, 1);
}

function bodyOf(records: object[], spacing: Spacing): Buffer {
  return Buffer.from(textOf(records, spacing));
}

/** Whether a cut could fall inside this record: a `}`, a `,` and a `{` in a row in its text. */
const mayBeCutInside = (text: string) => /\},\s*\{/.test(text);

/** Records no cut can fall inside: nested objects, but no `},{` in strings or nested arrays. */
const plainRecord = fc.record({
  path: trickyText.filter((t) => !mayBeCutInside(t)),
  userAgent: trickyText.filter((t) => !mayBeCutInside(t)),
  extra: fc.option(
    fc.dictionary(
      fc.string(),
      trickyText.filter((t) => !mayBeCutInside(t)),
    ),
    { nil: undefined },
  ),
});

// 40 to 80 records of 1,300 bytes or more: longer than PIECE_BYTES, cut once or more.
const manyRecords = <T>(one: fc.Arbitrary<T>) =>
  fc.tuple(
    fc.array(one, { minLength: 40, maxLength: 80 }),
    fc.nat(2000),
    fc.constantFrom<Spacing>('compact', 'python', 'pretty'),
  );

test('pieces: a large array parses in pieces to the same values as the whole text', () => {
  fc.assert(
    fc.property(manyRecords(plainRecord), ([records, pad, spacing]) => {
      const body = bodyOf(
        records.map((r) => padded(r, 1300 + pad)),
        spacing,
      );
      assert.ok(body.length > PIECE_BYTES);
      assert.deepEqual(parseJsonArrayInPieces(body), JSON.parse(body.toString('utf8')));
    }),
    { numRuns: 150 },
  );
});

test("pieces: with `},{` inside records, the values are the whole text's or none", () => {
  fc.assert(
    fc.property(manyRecords(record), ([records, pad, spacing]) => {
      const body = bodyOf(
        records.map((r) => padded(r, 1300 + pad)),
        spacing,
      );
      const pieces = parseJsonArrayInPieces(body);
      // Undefined when a cut fell inside a record (in a string, or between the objects of a
      // nested array): then the whole text decides.
      if (pieces !== undefined) assert.deepEqual(pieces, JSON.parse(body.toString('utf8')));
    }),
    { numRuns: 150 },
  );
});

test('pieces: a cut that falls inside a string is found out, and the whole text decides', () => {
  // The first record's string is full of `},{` well past PIECE_BYTES, so the first cut is in it.
  const inside = '},{'.repeat(PIECE_BYTES / 2);
  const records = [
    { path: '/a', userAgent: inside },
    ...Array.from({ length: 200 }, (_, i) => padded({ i }, 400)),
  ];
  const body = bodyOf(records, 'compact');
  assert.equal(parseJsonArrayInPieces(body), undefined);
  // And a body whose cuts fall between records is read in pieces, several of them.
  const plain = bodyOf(
    Array.from({ length: 600 }, (_, i) => padded({ i }, 400)),
    'compact',
  );
  assert.ok(plain.length > 4 * PIECE_BYTES);
  assert.deepEqual(parseJsonArrayInPieces(plain), JSON.parse(plain.toString()));
});

test('pieces: small bodies, and bodies that are not one array, are left to the whole parse', () => {
  assert.equal(parseJsonArrayInPieces(Buffer.from('[{"path":"/a"},{"path":"/b"}]')), undefined);
  const big = Array.from({ length: 300 }, (_, i) => padded({ i }, 300));
  const object = Buffer.from(JSON.stringify({ records: big }));
  assert.equal(parseJsonArrayInPieces(object), undefined);
  const two = Buffer.from(`${JSON.stringify(big)}${JSON.stringify(big)}`);
  // `][` is not `},{`: cuts never join two arrays, and the whole parse refuses this.
  assert.equal(parseJsonArrayInPieces(two), undefined);
  assert.throws(() => JSON.parse(two.toString()));
});

test('pieces: whitespace, a byte order mark and pretty printing read as the whole text does', () => {
  const records = Array.from({ length: 500 }, (_, i) => padded({ i, path: `/p${i}` }, 300));
  const expected = JSON.parse(JSON.stringify(records));
  const compact = JSON.stringify(records);
  for (const text of [`\n ${compact}\r\n\t `, `\ufeff${compact}`, `\ufeff \n${compact}\n`]) {
    assert.deepEqual(parseJsonArrayInPieces(Buffer.from(text)), expected, JSON.stringify(text.slice(0, 5)));
  }
  // Python's separators and pretty printing are cut too, several times.
  for (const spacing of ['python', 'pretty'] as const) {
    const body = bodyOf(records, spacing);
    assert.ok(body.length > 3 * PIECE_BYTES);
    assert.deepEqual(parseJsonArrayInPieces(body), expected, spacing);
  }
});

test('pieces: a broken body is never read as valid', () => {
  const body = bodyOf(
    Array.from({ length: 300 }, (_, i) => padded({ i, path: `/p${i}` }, 300)),
    'compact',
  );
  fc.assert(
    fc.property(
      fc.nat(body.length - 1),
      fc.constantFrom(...Buffer.from('[]{},":\\ x0\n\u0000')),
      fc.boolean(),
      (at, byte, cut) => {
        const broken = cut ? body.subarray(0, at) : Buffer.from(body);
        if (!cut) broken[at] = byte;
        let whole: unknown;
        let threw = false;
        try {
          whole = JSON.parse(broken.toString('utf8'));
        } catch {
          threw = true;
        }
        const pieces = parseJsonArrayInPieces(broken);
        if (threw) assert.equal(pieces, undefined);
        else if (pieces !== undefined) assert.deepEqual(pieces, whole);
      },
    ),
    { numRuns: 300 },
  );
});

test('pieces: invalid UTF-8 next to a cut decodes as it does in the whole text', () => {
  const records = Array.from({ length: 400 }, (_, i) => padded({ i }, 300));
  const body = bodyOf(records, 'compact');
  // End every record's padding with a lone continuation byte and a truncated three-byte
  // sequence: whichever record ends a piece, the bytes just before the cut are invalid.
  const text = body.toString('latin1').replaceAll('x"}', 'x\u0080\u00e2\u0082"}');
  const broken = Buffer.from(text, 'latin1');
  const whole = JSON.parse(broken.toString('utf8'));
  const pieces = parseJsonArrayInPieces(broken);
  assert.notEqual(pieces, undefined);
  assert.deepEqual(pieces, whole);
  assert.ok((whole as { pad: string }[])[0]!.pad.endsWith('x\ufffd\ufffd'));
});

/** NDJSON text: records, blank lines, CRLF, malformed lines, long enough to be cut. */
const ndjsonLines = fc.array(
  fc.oneof(
    record.map((r) => JSON.stringify(padded(r, 600))),
    fc.constantFrom('', '   ', '\r', '{"path": "/broken"', 'not json', '[[[[]]]]', '"\u2028"'),
    trickyText.map((t) => JSON.stringify({ path: t })),
  ),
  { minLength: 150, maxLength: 400 },
);

test('NDJSON: a body read in pieces gives the same values, line numbers and counts as its text', () => {
  fc.assert(
    fc.property(
      ndjsonLines,
      fc.constantFrom('\n', '\r\n'),
      fc.boolean(),
      fc.nat(500),
      (lines, end, trailing, limit) => {
        const text = lines.join(end) + (trailing ? end : '');
        const bytes = Buffer.from(text);
        assert.equal(linePieces(bytes).join('\n'), text);
        assert.deepEqual(parseNdjson(bytes, limit), parseNdjson(text, limit));
      },
    ),
    { numRuns: 120 },
  );
});

test('NDJSON: a long body is cut into pieces below the large-object limit, lines numbered across them', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify(padded({ i }, 300)));
  lines.push('{"broken"');
  const bytes = Buffer.from(lines.join('\n'));
  const pieces = linePieces(bytes);
  assert.ok(pieces.length >= 6, `${pieces.length} pieces`);
  for (const piece of pieces) assert.ok(piece.length < 2 * PIECE_BYTES, `${piece.length} characters`);
  const parsed = parseNdjson(bytes, 1001);
  assert.equal(parsed.lines, 1001);
  assert.deepEqual(
    parsed.items.slice(0, 1000).map((item) => (item as { i: number }).i),
    lines.slice(0, 1000).map((_, i) => i),
  );
  assert.equal((parsed.items[1000] as { line: number }).line, 1001);
});

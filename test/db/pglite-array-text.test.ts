// PGlite's array parameters go through our own serializer (src/db/pglite-array-text.ts): it must
// write exactly the text PGlite's own serializer writes, for every element PostgreSQL could read
// differently (quotes, backslashes, delimiters, braces, the word NULL, empty strings, nulls), and
// the values must come back as they were sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../src/db/pglite.ts';
import { arrayTextSerializer } from '../../src/db/pglite-array-text.ts';

const TRICKY = ['', 'NULL', 'null', 'a"b', 'c\\d', '\\"', 'x,y', '{}', ' padded ', 'é ✓ 日本', '"', '\\'];

function randomText(seed: number): string {
  const alphabet = ['a', 'Z', '"', '\\', ',', '{', '}', ' ', 'é', '/', '\n', '0'];
  let s = '';
  let x = seed;
  for (let i = 0; i < seed % 9; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += alphabet[x % alphabet.length];
  }
  return s;
}

test('the array text is the same as PGlite’s for text, numbers, timestamps, nulls and nesting', async () => {
  const pg = await PGlite.create();
  try {
    const cases: Array<[number, number, unknown]> = [
      [1009, 25, TRICKY],
      [1009, 25, [...TRICKY, null, undefined, 7, 'end']],
      [1009, 25, Array.from({ length: 300 }, (_, i) => randomText(i))],
      [1009, 25, []],
      [
        1009,
        25,
        [
          ['a', 'b'],
          ['c', 'd"'],
        ],
      ],
      [1009, 25, 'not an array'],
      [1016, 20, [1, 2, '3', null, 9007199254740991n]],
      [1007, 23, [0, -5, 42]],
      [1022, 701, [0.5, -1e-7, 3]],
      [1185, 1184, ['2026-11-27T12:00:00.000Z', new Date(Date.UTC(2026, 0, 2)), 0, null]],
    ];
    for (const [arrayOid, elementOid, value] of cases) {
      const ours = arrayTextSerializer(() => pg.serializers[elementOid], pg.serializers[arrayOid]!);
      assert.equal(ours(value), pg.serializers[arrayOid]!(value), `${arrayOid}: ${inspect(value)}`);
    }
  } finally {
    await pg.close();
  }
});

test('text[] and bigint[] parameters round-trip through PGlite', async () => {
  const db = await openPglite(null);
  try {
    const texts = [...TRICKY, ...Array.from({ length: 50 }, (_, i) => randomText(i * 7 + 3))];
    const [row] = await db.query<{ t: string[]; n: number; nulls: number }>(
      `SELECT $1::text[] AS t, cardinality($1::text[]) AS n,
              (SELECT count(*) FROM unnest($2::text[]) AS u WHERE u IS NULL)::int AS nulls`,
      [texts, ['a', null, 'NULL', null]],
    );
    assert.deepEqual(row!.t, texts);
    assert.equal(row!.n, texts.length);
    assert.equal(row!.nulls, 2);
    const [sum] = await db.query<{ s: string }>('SELECT sum(v)::text AS s FROM unnest($1::bigint[]) AS v', [
      [1, 2, 9007199254740991],
    ]);
    assert.equal(sum!.s, '9007199254740994');
  } finally {
    await db.close();
  }
});

// PGlite's bytea parameters go through our own serializer (src/db/pglite.ts, byteaBinary), which
// hands PGlite the bytes for a binary parameter: the bytes a view over a larger buffer shows, no
// more and no fewer, reach the database, and anything but bytes is refused before it is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteaBinary, openPglite } from '../../src/db/pglite.ts';

test('byteaBinary passes the bytes themselves and refuses anything else', () => {
  const bytes = Uint8Array.of(0, 255, 16);
  assert.equal(byteaBinary(bytes) as unknown, bytes);
  assert.throws(() => byteaBinary('\\x00ff'), TypeError);
  assert.throws(() => byteaBinary([0, 255]), TypeError);
});

test('a bytea parameter round-trips through PGlite', async () => {
  const db = await openPglite(null);
  try {
    const pool = Buffer.from([9, 0, 255, 128, 7, 6]);
    const view = pool.subarray(1, 5);
    const [row] = await db.query<{ b: Uint8Array; n: number; hex: string }>(
      "SELECT $1::bytea AS b, length($1::bytea) AS n, encode($1::bytea, 'hex') AS hex",
      [view],
    );
    assert.deepEqual([...row!.b], [0, 255, 128, 7]);
    assert.equal(row!.n, 4);
    assert.equal(row!.hex, '00ff8007');
    // Bytes that spell text or hex text stay bytes: nothing reads them as an escape.
    const textual = Buffer.from('\\x41', 'latin1');
    const [spelled] = await db.query<{ n: number; hex: string }>(
      "SELECT length($1::bytea) AS n, encode($1::bytea, 'hex') AS hex",
      [textual],
    );
    assert.deepEqual(spelled, { n: 4, hex: '5c783431' });
    const [empty] = await db.query<{ n: number }>('SELECT length($1::bytea) AS n', [new Uint8Array(0)]);
    assert.equal(empty!.n, 0);
    const [none] = await db.query<{ b: null }>('SELECT $1::bytea AS b', [null]);
    assert.equal(none!.b, null);
  } finally {
    await db.close();
  }
});

test('a bytea parameter that is not bytes fails the statement with a TypeError', async () => {
  const db = await openPglite(null);
  try {
    await assert.rejects(db.query('SELECT $1::bytea AS b', ['00ff']), TypeError);
    // The session is still usable afterwards.
    const [row] = await db.query<{ n: number }>('SELECT 1 AS n');
    assert.equal(row!.n, 1);
  } finally {
    await db.close();
  }
});

// PGlite's bytea parameters go through our own hex serializer (src/db/pglite.ts, byteaHex):
// the bytes a view over a larger buffer shows, no more and no fewer, reach the database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteaHex, openPglite } from '../../src/db/pglite.ts';

test('byteaHex writes PostgreSQL hex text of exactly the view’s bytes', () => {
  assert.equal(byteaHex(Uint8Array.of(0, 255, 16)), '\\x00ff10');
  const whole = Buffer.from([1, 2, 3, 4, 5]);
  assert.equal(byteaHex(whole.subarray(1, 3)), '\\x0203');
  assert.equal(byteaHex(new Uint8Array(0)), '\\x');
  assert.throws(() => byteaHex('00ff'), TypeError);
});

test('a bytea parameter round-trips through PGlite', async () => {
  const db = await openPglite(null);
  try {
    const pool = Buffer.from([9, 0, 255, 128, 7, 6]);
    const view = pool.subarray(1, 5);
    const [row] = await db.query<{ b: Uint8Array; n: number }>(
      'SELECT $1::bytea AS b, length($1::bytea) AS n',
      [view],
    );
    assert.deepEqual([...row!.b], [0, 255, 128, 7]);
    assert.equal(row!.n, 4);
  } finally {
    await db.close();
  }
});

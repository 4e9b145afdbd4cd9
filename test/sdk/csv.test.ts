// The client writes CSV by the server's rules, so `views --csv` gives the same bytes whether the
// server or the client wrote it: checked on arbitrary strings against the server's own writer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { csvCell, toCsv } from '../../src/contract/index.ts';
import { csvField, viewsToCsv } from '../../src/sdk/csv.ts';
import { parseCsv } from './csv-parse.ts';

test('a field is written as the server writes it, for any text or count', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.nat(), fc.constant(null)), (value) => {
      assert.equal(csvField(value), csvCell(value));
    }),
    { numRuns: 2000 },
  );
  // Cases the generator may miss.
  for (const value of ['=1+1', '+x', '-y', '@z', '\tt', '\rr', 'a,b', 'say "hi"', 'two\nlines', '']) {
    assert.equal(csvField(value), csvCell(value), JSON.stringify(value));
  }
});

test('a document reads back to its rows (formula guard aside)', () => {
  const row = fc.record({
    path: fc.string({ minLength: 1 }).map((s) => `/${s}`),
    human: fc.nat(),
    ai: fc.nat(),
  });
  fc.assert(
    fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
      const views = rows.map((r) => ({ ...r, total: r.human + r.ai }));
      const csv = viewsToCsv(views);
      assert.equal(
        csv,
        toCsv(
          ['path', 'human', 'ai', 'total'],
          views.map((v) => [v.path, v.human, v.ai, v.total]),
        ),
      );
      const [, ...records] = parseCsv(csv);
      assert.deepEqual(
        records.map(([path, human, ai, total]) => ({
          path,
          human: Number(human),
          ai: Number(ai),
          total: Number(total),
        })),
        views,
      );
    }),
  );
});

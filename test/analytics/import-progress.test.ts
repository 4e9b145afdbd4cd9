// The import's progress display: a bar redrawn in place on a terminal, a quiet line now and then
// elsewhere, driven by an injected clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes, ImportProgress } from '../../src/modules/analytics/import/progress.ts';

function target(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, columns: 80, write: (text: string) => written.push(text) };
}

test('on a terminal: a bar with percentage, sizes, lines and rate, redrawn at most every 100 ms, cleared at the end', () => {
  let now = 0;
  const out = target(true);
  const progress = new ImportProgress(out, { now: () => now });
  progress.start('access.log.gz', 4 * 1024 * 1024);
  now = 50;
  progress.update(10, 1024);
  assert.equal(out.written.length, 0, 'not before 100 ms');
  now = 1000;
  progress.update(50_000, 1024 * 1024);
  assert.equal(out.written.length, 1);
  const line = out.written[0]!;
  assert.ok(line.startsWith('\r'));
  assert.equal(line.length, 80, 'padded to the terminal width minus one, after \\r');
  assert.match(line, /access\.log\.gz +\[#{3}-{9}\] +25% +1\.0 MiB\/4\.0 MiB +50,000 lines +50,000\/s +$/);
  progress.finish();
  assert.match(out.written.at(-1)!, /^\r +\r$/);
});

test('elsewhere: one plain line every 10 s, without control characters; unknown size shows no percentage', () => {
  let now = 0;
  const out = target(false);
  const progress = new ImportProgress(out, { now: () => now });
  progress.start('(stdin)', null);
  for (now = 1000; now < 25_000; now += 1000) progress.update(now * 10, now);
  assert.deepEqual(out.written, [
    'import-logs: (stdin): 100,000 lines read, 10,000 lines/s\n',
    'import-logs: (stdin): 200,000 lines read, 10,000 lines/s\n',
  ]);
  progress.finish();
  assert.equal(out.written.length, 2);
});

test('sizes in binary units', () => {
  assert.deepEqual([0, 1023, 1024, 10 * 1024 * 1024, 3.5 * 1024 ** 3].map(formatBytes), [
    '0 B',
    '1023 B',
    '1.0 KiB',
    '10 MiB',
    '3.5 GiB',
  ]);
});

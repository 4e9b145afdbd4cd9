// What visitor ids and referrals cost a log import: the same generated combined log imported
// into fresh projects with the importer's visitor ids (keyed hash per human/AI line, ids carried
// in the chunk and folded into the sketches in its transaction) and with a stand-in that makes no
// id (the import before visitors were kept, but for the referrer check, which is a memoised
// lookup), alternated in one run so machine load hits both alike. PostgreSQL at TEST_DATABASE_URL
// (a fresh database, dropped at the end), database sink as with DATABASE_URL.
//
// Run: node bench/import-visitors.ts [--lines 100000] [--rounds 3]
// Prints one `figure:` line: lines/s of each and the ratio (with / without).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { createClassificationContext } from '../src/modules/analytics/classification/context.ts';
import { databaseImportSink } from '../src/modules/analytics/import/database-sink.ts';
import { lineParserFactory } from '../src/modules/analytics/import/formats.ts';
import { importSource } from '../src/modules/analytics/import/importer.ts';
import { openLogSource } from '../src/modules/analytics/import/source.ts';
import type { ImportVisitorIds } from '../src/modules/analytics/import/visitor-days.ts';
import { createProject } from '../src/modules/projects/index.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';

const { values } = parseArgs({ options: { lines: { type: 'string' }, rounds: { type: 'string' } } });
const LINES = Number(values.lines ?? 100_000);
const ROUNDS = Number(values.rounds ?? 3);
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
];
const REFERRERS = ['-', '-', 'https://www.google.com/', 'https://chatgpt.com/'];

function logText(): string {
  const out: string[] = [];
  const start = Date.UTC(2026, 9, 20);
  for (let i = 0; i < LINES; i++) {
    const t = new Date(start + i * 2000);
    const two = (n: number) => String(n).padStart(2, '0');
    const time = `${two(t.getUTCDate())}/Oct/2026:${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())} +0000`;
    const ip = `10.${(i * 7) % 200}.${(i * 13) % 250}.${i % 50}`;
    out.push(
      `${ip} - - [${time}] "GET /docs/page-${i % 2000} HTTP/1.1" 200 512 "${REFERRERS[i % 4]}" "${UAS[i % 3]}"`,
    );
  }
  return `${out.join('\n')}\n`;
}

// The import before visitors: no id for any line.
const noIds = { hasherAt: async () => ({ id: () => null }) } as unknown as ImportVisitorIds;

const created = await createPostgresDatabase();
const db = await openPostgres(created.url);
const path = join('/dev/shm', `dw-bench-import-${process.pid}.log`);
try {
  await migrate(db);
  writeFileSync(path, logText());
  const classification = createClassificationContext({ webBotAuth: false });
  const rates: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
      const project = await createProject(
        db,
        { name: `b${round}${kind}`, repositoryUrl: 'https://github.com/x/y' },
        { allowPrivateAddresses: false },
      );
      const started = performance.now();
      const sink = databaseImportSink(db, 'bench');
      await importSource(await openLogSource(path), {
        projectId: project.id,
        parse: lineParserFactory({})(),
        classification,
        sink,
        ...(kind === 'without' ? { visitorIds: noIds } : {}),
      });
      // The import's end, as the CLI ends it: the last chunks' staged visitor ids are folded.
      await sink.close();
      rates[kind].push(LINES / ((performance.now() - started) / 1000));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const withIds = median(rates.with);
  const without = median(rates.without);
  console.log(
    `figure: import ${LINES} lines, median of ${ROUNDS}: with visitor ids ${Math.round(withIds)} lines/s, ` +
      `without ${Math.round(without)} lines/s, ratio ${(withIds / without).toFixed(2)}`,
  );
} finally {
  rmSync(path, { force: true });
  await db.close();
  await created.drop();
}

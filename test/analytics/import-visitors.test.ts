// Visitor ids and AI referrals from log import, on both engines, through the importer and the
// database sink the CLI uses: distinct readers per page and class in /visitors (an AI agent's
// lines from one address are one visitor, bots none), referrer hosts and utm_source in
// /referrals (humans only), and the salt rule (docs/log-import.md#visitors): the current day's
// lines share the stored salt across runs (and with ingest), a past day's lines get a salt of the
// run's own that is never stored.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { databaseImportSink } from '../../src/modules/analytics/import/database-sink.ts';
import { lineParserFactory } from '../../src/modules/analytics/import/formats.ts';
import { importSource } from '../../src/modules/analytics/import/importer.ts';
import { openLogSource } from '../../src/modules/analytics/import/source.ts';
import { exportReferrals } from '../../src/modules/analytics/referrals.ts';
import { addViews, ViewSums, VisitorSalts } from '../../src/modules/analytics/store/index.ts';
import { exportVisitors } from '../../src/modules/analytics/visitors.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { CHROME, GOOGLEBOT, GPTBOT } from './import-fixtures.ts';

const classification = createClassificationContext({ webBotAuth: false });
const dir = mkdtempSync(join(process.platform === 'linux' ? '/dev/shm' : tmpdir(), 'dw-import-visitors-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function clf(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}
const line = (ip: string, ms: number, target: string, ua: string, referrer = '-') =>
  `${ip} - - [${clf(ms)}] "GET ${target} HTTP/1.1" 200 512 "${referrer}" "${ua}"\n`;

const PAST = Date.UTC(2026, 9, 21, 9, 0);
const HOUR = 3_600_000;

await forEachBackend('visitors and referrals from log import', ({ db }) => {
  const run = (projectId: string, path: string) =>
    openLogSource(path).then((source) =>
      importSource(source, {
        projectId,
        parse: lineParserFactory({})(),
        classification,
        sink: databaseImportSink(db(), 'test'),
      }),
    );
  const visitors = (projectId: string, dateFrom: string, dateTo: string) =>
    exportVisitors(db(), projectId, { dateFrom, dateTo });

  test('readers per page and class, AI agents by address, bots none; referrals of humans only', async () => {
    const { project } = await seedProject(db());
    const path = join(dir, 'past.log');
    writeFileSync(
      path,
      [
        line('203.0.113.1', PAST, '/a', CHROME, 'https://chatgpt.com/'),
        line('203.0.113.1', PAST + 60_000, '/a', CHROME),
        line('203.0.113.1', PAST + HOUR, '/b?utm_source=perplexity', CHROME),
        line('203.0.113.2', PAST + 120_000, '/a', FIREFOX, 'https://www.google.com/'),
        // Same address, another browser: another reader.
        line('203.0.113.1', PAST + 180_000, '/a', FIREFOX),
        // An AI agent from one address is one visitor whatever it calls itself; it is never referred.
        line('132.196.86.7', PAST, '/a', GPTBOT, 'https://chatgpt.com/'),
        line('132.196.86.7', PAST + HOUR, '/b', GPTBOT.replace('1.2', '1.3')),
        line('66.249.66.1', PAST, '/a', GOOGLEBOT),
      ].join(''),
    );
    const summary = await run(project.id, path);
    assert.equal(summary.status, 'imported');
    const report = await visitors(project.id, '2026-10-21', '2026-10-22');
    assert.deepEqual(report.totals, { human: 3, ai: 1, total: 4 });
    assert.deepEqual(report.visitors, [
      { path: '/a', human: 3, ai: 1, total: 4 },
      { path: '/b', human: 1, ai: 1, total: 2 },
    ]);
    // The hourly level: 10:00-11:00 holds the /b lines alone.
    const hour = await visitors(project.id, '2026-10-21T10:00:00Z', '2026-10-21T11:00:00Z');
    assert.deepEqual(hour.totals, { human: 1, ai: 1, total: 2 });

    const referrals = await exportReferrals(db(), project.id, {
      dateFrom: '2026-10-21',
      dateTo: '2026-10-22',
    });
    assert.deepEqual(referrals.assistants, [
      { assistant: 'ChatGPT', operator: 'OpenAI', views: 1 },
      { assistant: 'Perplexity', operator: 'Perplexity', views: 1 },
    ]);
    assert.deepEqual(
      referrals.referrals.map((r) => [r.assistant, r.path, r.views]),
      [
        ['ChatGPT', '/a', 1],
        ['Perplexity', '/b', 1],
      ],
    );
    // A past day's salt is not stored (nor made again): its row was deleted with its day.
    const salts = await db().query<{ day: Date }>('SELECT day FROM visitor_salts');
    assert.ok(salts.every((row) => row.day.getTime() > PAST));
  });

  test("today's lines share the stored salt across runs and with ingest; a past day's get one per run", async () => {
    const { project } = await seedProject(db());
    const now = Date.now();
    const today = new Date(now).toISOString().slice(0, 10);
    const tomorrow = new Date(now + 86_400_000).toISOString().slice(0, 10);
    const path = join(dir, 'grown.log');
    writeFileSync(
      path,
      line('198.51.100.7', now - 1000, '/t', CHROME) + line('198.51.100.7', PAST, '/p', CHROME),
    );
    await run(project.id, path);
    // The log grows: the same reader again, today and on the past day; a second run reads only that.
    appendFileSync(
      path,
      line('198.51.100.7', now - 500, '/t', CHROME) + line('198.51.100.7', PAST + 60_000, '/p', CHROME),
    );
    await run(project.id, path);
    assert.deepEqual((await visitors(project.id, today, tomorrow)).totals, { human: 1, ai: 0, total: 1 });
    // Documented limit: a past day's lines in two runs are two salts, so the reader counts twice.
    assert.deepEqual((await visitors(project.id, '2026-10-21', '2026-10-22')).totals, {
      human: 2,
      ai: 0,
      total: 2,
    });
    // Ingest's id for the same reader today is the import's: the stored salt is the same.
    const stored = await db().query<{ salt: Uint8Array }>(
      'SELECT salt FROM visitor_salts WHERE day = $1::date',
      [today],
    );
    assert.equal(stored.length, 1);
    const ingestId = (await new VisitorSalts(db()).hasherAt(now)).id(
      project.id,
      'human',
      '198.51.100.7',
      CHROME,
    );
    assert.ok(ingestId !== null);
    const sums = new ViewSums();
    sums.visitors.add(project.id, Math.floor(now / HOUR) * 3600, 'human', '/t', ingestId);
    await db().transaction((tx) => addViews(tx, sums));
    assert.deepEqual((await visitors(project.id, today, tomorrow)).totals, { human: 1, ai: 0, total: 1 });
    // While another reader's id is one more.
    const other = (await new VisitorSalts(db()).hasherAt(now)).id(
      project.id,
      'human',
      '198.51.100.8',
      CHROME,
    );
    const more = new ViewSums();
    more.visitors.add(project.id, Math.floor(now / HOUR) * 3600, 'human', '/t', other!);
    await db().transaction((tx) => addViews(tx, more));
    assert.deepEqual((await visitors(project.id, today, tomorrow)).totals, { human: 2, ai: 0, total: 2 });
  });
  test('a chunk stages its visitor ids; the end of the import folds them', async () => {
    const { project } = await seedProject(db());
    const path = join(dir, 'staged.log');
    writeFileSync(
      path,
      [line('203.0.113.9', PAST, '/s', CHROME), line('203.0.113.8', PAST, '/s', FIREFOX)].join(''),
    );
    const staged = async () =>
      Number((await db().query<{ n: number }>('SELECT count(*)::int AS n FROM visitor_ids_staged'))[0]!.n);
    const sink = databaseImportSink(db(), 'test');
    const source = await openLogSource(path);
    await importSource(source, {
      projectId: project.id,
      parse: lineParserFactory({})(),
      classification,
      sink,
    });
    // Staged with the chunk's views, not yet in the sketches (one chunk: no fold yet).
    assert.ok((await staged()) > 0);
    await sink.close();
    assert.equal(await staged(), 0);
    assert.deepEqual((await visitors(project.id, '2026-10-21', '2026-10-22')).totals, {
      human: 2,
      ai: 0,
      total: 2,
    });
  });
});

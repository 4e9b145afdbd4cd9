// Log import on both engines, through the importer and the ledger the CLI uses (a database sink,
// as when the CLI holds the database itself): counts per path and class against a hand-made
// answer, the export, gzip, standard input, malformed lines, importing twice, a grown log, a
// changed log, the wrong format, chunking and the ledger's refusal of out-of-place chunks.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { EMPTY_SHA256, type ImportChunk } from '../../src/modules/analytics/import/chunk.ts';
import { databaseImportSink, readLedgerEntries } from '../../src/modules/analytics/import/database-sink.ts';
import { type FormatChoice, lineParserFactory } from '../../src/modules/analytics/import/formats.ts';
import {
  type ChunkLimits,
  importSource,
  type SourceSummary,
} from '../../src/modules/analytics/import/importer.ts';
import { applyChunk } from '../../src/modules/analytics/import/ledger.ts';
import { openLogSource } from '../../src/modules/analytics/import/source.ts';
import { selectUnrecognizedAgents } from '../../src/modules/analytics/unrecognized-queries.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import {
  CHROME,
  cloudflareLine,
  combinedLine,
  type ExpectedRow,
  expectedCounts,
  gzip,
  logText,
  sampleHits,
} from './import-fixtures.ts';

const classification = createClassificationContext({ webBotAuth: false });
const dir = mkdtempSync(
  join(process.env.TEST_TMPDIR ?? (process.platform === 'linux' ? '/dev/shm' : tmpdir()), 'dw-import-'),
);
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
function file(content: string | Buffer, name = `log-${++fileCounter}.log`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const CLOUDFLARE_MAP: FormatChoice = {
  format: 'json',
  map: {
    userAgent: 'ClientRequestUserAgent',
    path: 'ClientRequestURI',
    timestamp: 'EdgeStartTimestamp',
    ip: 'ClientIP',
    method: 'ClientRequestMethod',
    status: 'EdgeResponseStatus',
  },
};

await forEachBackend('log import', ({ db }) => {
  async function run(
    projectId: string,
    path: string,
    options: {
      format?: FormatChoice;
      chunkLimits?: ChunkLimits;
      stdin?: Readable;
      malformedListed?: number;
    } = {},
  ): Promise<SourceSummary> {
    const source = await openLogSource(path, options.stdin);
    return importSource(source, {
      projectId,
      parse: lineParserFactory(options.format ?? {})(),
      classification,
      sink: databaseImportSink(db(), 'test'),
      ...(options.chunkLimits ? { chunkLimits: options.chunkLimits } : {}),
      ...(options.malformedListed !== undefined ? { malformedListed: options.malformedListed } : {}),
    });
  }

  async function rollups(projectId: string): Promise<ExpectedRow[]> {
    const rows = await db().query<{
      hour: Date;
      path: string;
      traffic_class: string;
      agent: string;
      verification: string;
      views: number;
    }>(
      `SELECT hour, path, traffic_class, agent, verification, views FROM page_views_hourly WHERE project_id = $1`,
      [projectId],
    );
    return rows.map((r) => ({
      hour: r.hour.toISOString(),
      path: r.path,
      trafficClass: r.traffic_class,
      // Bots are named by isbot's match; the test checks their class, not the name it picks.
      ...(r.traffic_class === 'ai' ? { agent: r.agent } : {}),
      ...(r.verification ? { verification: r.verification } : {}),
      views: Number(r.views),
    }));
  }
  const sorted = (rows: ExpectedRow[]) =>
    [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const assertRollups = async (projectId: string, expected: ExpectedRow[]) =>
    assert.deepEqual(sorted(await rollups(projectId)), sorted(expected));
  /** Rows with every count multiplied: what importing the same lines n times would wrongly give. */
  const times = (rows: ExpectedRow[], n: number) => rows.map((r) => ({ ...r, views: r.views * n }));

  const hits = sampleHits();
  const expected = expectedCounts(hits);

  describe('a combined log', () => {
    test('counts per hour, path, class, agent and verification equal the hand-made answer; the summary says why lines were not counted', async () => {
      const { project, readKey } = await seedProject(db());
      const summary = await run(project.id, file(logText(hits)));
      await assertRollups(project.id, expected.rows);
      assert.equal(summary.status, 'imported');
      assert.equal(summary.lines, hits.length);
      assert.equal(summary.newLines, hits.length);
      assert.equal(summary.alreadyImported, 0);
      assert.deepEqual(summary.byClass, expected.byClass);
      assert.equal(summary.accepted, expected.byClass.human + expected.byClass.ai + expected.byClass.bot);
      assert.deepEqual(summary.dropped, expected.dropped);
      assert.equal(summary.blank, expected.blank);
      assert.equal(summary.malformed, expected.malformedLines.length);
      assert.deepEqual(
        summary.malformedLines.map((m) => m.line),
        expected.malformedLines,
      );
      assert.match(summary.malformedLines[0]!.reason, /combined/);

      // The export shows the same numbers.
      const app = await createTestApp(db());
      try {
        const res = await app.inject({
          method: 'GET',
          url: `/v1/analytics/${project.id}/views`,
          headers: bearer(readKey),
        });
        const report = res.json();
        assert.deepEqual(report.totals, {
          human: expected.byClass.human,
          ai: expected.byClass.ai,
          total: expected.byClass.human + expected.byClass.ai,
        });
        const guide = report.views.find((v: { path: string }) => v.path === '/guide');
        assert.deepEqual(guide, { path: '/guide', human: 4, ai: 2, total: 6 });
      } finally {
        await app.close();
      }
    });

    test('importing the same log again counts nothing; the ledger says how far it got', async () => {
      const { project } = await seedProject(db());
      const path = file(logText(hits));
      await run(project.id, path);
      const again = await run(project.id, path);
      assert.equal(again.status, 'up_to_date');
      assert.equal(again.alreadyImported, hits.length);
      assert.equal(again.newLines, 0);
      await assertRollups(project.id, expected.rows);
      // A copy under another name is the same log.
      const copy = await run(project.id, file(logText(hits), 'copy-of-access.log'));
      assert.equal(copy.status, 'up_to_date');
      await assertRollups(project.id, expected.rows);
      const [entry] = await readLedgerEntries(db(), project.id, [again.fingerprint!]);
      assert.equal(entry!.lines, hits.length);
      assert.equal(entry!.malformed, expected.malformedLines.length);
    });

    test('a log that grew: only the new lines count, and their line numbers continue', async () => {
      const { project } = await seedProject(db());
      const first = hits.slice(0, 8);
      const path = file(logText(first));
      await run(project.id, path);
      await assertRollups(project.id, expectedCounts(first).rows);
      appendFileSync(path, logText(hits.slice(8)));
      const grown = await run(project.id, path);
      assert.equal(grown.alreadyImported, 8);
      assert.equal(grown.newLines, hits.length - 8);
      assert.deepEqual(
        grown.malformedLines.map((m) => m.line),
        expected.malformedLines.filter((n) => n > 8),
      );
      await assertRollups(project.id, expected.rows);
    });

    test('an unfinished last line of a plain file waits for the next import, then counts once', async () => {
      const { project } = await seedProject(db());
      const text = logText(hits);
      const last = combinedLine(hits.at(-1)!, hits.length - 1);
      const path = file(text.slice(0, -(last.length + 1)) + last.slice(0, 30));
      const partial = await run(project.id, path);
      assert.equal(partial.heldBackLastLine, true);
      assert.equal(partial.lines, hits.length - 1);
      writeFileSync(path, text);
      const done = await run(project.id, path);
      assert.equal(done.heldBackLastLine, false);
      assert.equal(done.newLines, 1);
      await assertRollups(project.id, expected.rows);
    });

    test('a log edited in place (same first line, other counted lines) is refused and counts nothing', async () => {
      const { project } = await seedProject(db());
      const path = file(logText(hits));
      await run(project.id, path);
      const edited = logText(hits).replace('/guide/index.html', '/other/index.html');
      writeFileSync(path, `${edited}${combinedLine(hits[0]!, 0)}\n`);
      const summary = await run(project.id, path);
      assert.equal(summary.status, 'failed');
      assert.equal(summary.error?.code, 'import_source_changed');
      await assertRollups(project.id, expected.rows);
    });

    test('a log in another format is refused before anything counts; with the right format it imports', async () => {
      const { project } = await seedProject(db());
      const path = file(logText(hits, cloudflareLine));
      const wrong = await run(project.id, path, { format: { format: 'combined' } });
      assert.equal(wrong.status, 'failed');
      assert.equal(wrong.error?.code, 'import_unrecognised');
      assert.match(wrong.error!.message, /--format/);
      assert.deepEqual(await readLedgerEntries(db(), project.id, [wrong.fingerprint!]), []);
      // JSON without a mapping has no page in any line: refused the same way.
      const unmapped = await run(project.id, path, { format: { format: 'json' } });
      assert.equal(unmapped.error?.code, 'import_unrecognised');
      await assertRollups(project.id, []);
      const right = await run(project.id, path, { format: CLOUDFLARE_MAP });
      assert.equal(right.status, 'imported');
      await assertRollups(project.id, expected.rows);
    });

    test('malformed lines are listed by number up to the limit, then counted', async () => {
      const { project } = await seedProject(db());
      const lines = Array.from({ length: 30 }, (_, i) =>
        i === 1
          ? combinedLine(hits[0]!, i).replace('/guide', '/gu\0ide')
          : i % 3 === 0
            ? combinedLine(hits[0]!, i)
            : `junk ${i + 1}`,
      );
      const summary = await run(project.id, file(`${lines.join('\n')}\n`), { malformedListed: 5 });
      assert.equal(summary.malformed, 20);
      assert.deepEqual(
        summary.malformedLines.map((m) => m.line),
        [2, 3, 5, 6, 8],
      );
      assert.equal(summary.malformedLines[0]!.reason, 'contains a NUL character');
    });

    test('small chunks give the same counts, and the ledger ends at the last line', async () => {
      const { project } = await seedProject(db());
      const summary = await run(project.id, file(logText(hits)), {
        chunkLimits: { lines: 3, rows: 2, bytes: 1_000_000 },
      });
      assert.equal(summary.newLines, hits.length);
      await assertRollups(project.id, expected.rows);
      const [entry] = await readLedgerEntries(db(), project.id, [summary.fingerprint!]);
      assert.equal(entry!.lines, hits.length);
    });
  });

  describe('JSON lines with --map', () => {
    test('Cloudflare-style field names mapped to the record: the same counts as the combined log', async () => {
      const { project } = await seedProject(db());
      const summary = await run(project.id, file(logText(hits, cloudflareLine)), { format: CLOUDFLARE_MAP });
      await assertRollups(project.id, expected.rows);
      assert.deepEqual(summary.dropped, expected.dropped);
      assert.deepEqual(
        summary.malformedLines.map((m) => m.line),
        expected.malformedLines,
      );
      assert.match(summary.malformedLines[0]!.reason, /JSON/);
    });
  });

  describe('gzip and standard input', () => {
    test('a .gz log is read directly and is the same log as its plain text (rotation adds only new lines)', async () => {
      const { project } = await seedProject(db());
      const firstHalf = hits.slice(0, 10);
      await run(project.id, file(logText(firstHalf), 'access.log'));
      // logrotate compressed the log after it grew: only the second half is new.
      const rotated = await run(project.id, file(gzip(logText(hits)), 'access.log.1.gz'));
      assert.equal(rotated.alreadyImported, 10);
      assert.equal(rotated.newLines, hits.length - 10);
      await assertRollups(project.id, expected.rows);
    });

    test('a gzip file of several members (concatenated archives), named without .gz', async () => {
      const { project } = await seedProject(db());
      const text = logText(hits);
      const cut = text.indexOf('\n', text.length / 2) + 1;
      const summary = await run(
        project.id,
        file(Buffer.concat([gzip(text.slice(0, cut)), gzip(text.slice(cut))]), 'archive.bin'),
      );
      assert.equal(summary.lines, hits.length);
      await assertRollups(project.id, expected.rows);
    });

    test('standard input, plain and gzip; its unfinished last line is complete (the pipe ended)', async () => {
      const { project } = await seedProject(db());
      const text = logText(hits).slice(0, -1); // no final newline
      const summary = await run(project.id, '-', { stdin: Readable.from([Buffer.from(text)]) });
      assert.equal(summary.source, '-');
      assert.equal(summary.heldBackLastLine, false);
      assert.equal(summary.lines, hits.length);
      await assertRollups(project.id, expected.rows);
      const again = await run(project.id, '-', { stdin: Readable.from([gzip(text)]) });
      assert.equal(again.status, 'up_to_date');
      await assertRollups(project.id, expected.rows);
    });

    test('a corrupt gzip file fails alone, with a reason, and counts nothing', async () => {
      const { project } = await seedProject(db());
      const good = gzip(logText(hits));
      const corrupt = Buffer.concat([good.subarray(0, 40), Buffer.alloc(64, 7)]);
      const summary = await run(project.id, file(corrupt, 'broken.gz'));
      assert.equal(summary.status, 'failed');
      assert.match(summary.error!.code, /^Z_|ERR_/);
      await assertRollups(project.id, []);
    });
  });

  describe('the ledger', () => {
    let projectId: string;
    const fingerprint = 'a'.repeat(64);
    const sha = (c: string) => c.repeat(64);
    const chunk = (from: [number, string], to: [number, string], views = 1): ImportChunk => ({
      projectId,
      fingerprint,
      sourceName: 'x.log',
      from: { lines: from[0], sha256: from[1] },
      to: { lines: to[0], sha256: to[1] },
      rows: [
        {
          hour: '2025-03-14T09:00:00.000Z',
          path: '/l',
          trafficClass: 'human',
          agent: '',
          verification: '',
          views,
        },
      ],
      stats: { accepted: views, dropped: 0, malformed: 0 },
    });
    before(async () => {
      projectId = (await seedProject(db())).project.id;
    });
    const views = async () =>
      Number(
        (
          await db().query<{ v: number }>(
            'SELECT coalesce(sum(views), 0)::bigint AS v FROM page_views_hourly WHERE project_id = $1',
            [projectId],
          )
        )[0]!.v,
      );

    test('a chunk sent twice (its answer was lost) is applied once', async () => {
      const first = chunk([0, EMPTY_SHA256], [5, sha('b')], 3);
      assert.deepEqual(await applyChunk(db(), first), { lines: 5, alreadyApplied: false, views: 3 });
      assert.deepEqual(await applyChunk(db(), first), { lines: 5, alreadyApplied: true, views: 0 });
      assert.equal(await views(), 3);
    });

    test('a chunk that does not start where the ledger stands is refused (409 import_conflict), nothing counted', async () => {
      for (const bad of [
        chunk([0, EMPTY_SHA256], [3, sha('c')]), // a second import starting over
        chunk([4, sha('b')], [9, sha('d')]), // a gap
        chunk([5, sha('e')], [9, sha('d')]), // the same length, other lines
      ]) {
        await assert.rejects(applyChunk(db(), bad), (e: { code?: string; status?: number }) => {
          assert.equal(e.code, 'import_conflict');
          assert.equal(e.status, 409);
          return true;
        });
      }
      assert.equal(await views(), 3);
      assert.deepEqual(await applyChunk(db(), chunk([5, sha('b')], [9, sha('d')], 2)), {
        lines: 9,
        alreadyApplied: false,
        views: 2,
      });
      assert.equal(await views(), 5);
    });

    test('an unknown project is project_not_found, before anything is written', async () => {
      await assert.rejects(
        applyChunk(db(), { ...chunk([0, EMPTY_SHA256], [1, sha('f')]), projectId: 'prj_nope' }),
        (e: { code?: string }) => e.code === 'project_not_found',
      );
      await assert.rejects(
        readLedgerEntries(db(), 'prj_nope', []),
        (e: { code?: string }) => e.code === 'project_not_found',
      );
    });

    test('concurrent imports of one log: each line counted once (the ledger row serialises them)', async () => {
      const { project } = await seedProject(db());
      const path = file(logText(hits));
      const both = await Promise.all([
        run(project.id, path, { chunkLimits: { lines: 2, rows: 100, bytes: 1e6 } }),
        run(project.id, path, { chunkLimits: { lines: 2, rows: 100, bytes: 1e6 } }),
      ]);
      // One may find the other done (up_to_date) or lose a race for a chunk (import_conflict, to be
      // re-run); nothing is ever counted twice.
      for (const s of both)
        assert.ok(
          ['imported', 'up_to_date'].includes(s.status) || s.error?.code === 'import_conflict',
          `${s.status} ${JSON.stringify(s.error)}`,
        );
      const rerun = await run(project.id, path);
      assert.ok(rerun.status === 'up_to_date' || rerun.status === 'imported');
      await assertRollups(project.id, expected.rows);
      assert.notDeepEqual(sorted(await rollups(project.id)), sorted(times(expected.rows, 2)));
    });

    test('a line with a browser user agent and a .md path stays human (people click .md links)', async () => {
      const { project } = await seedProject(db());
      const line = `1.2.3.4 - - [14/Mar/2025:09:00:00 +0000] "GET /notes.md HTTP/1.1" 200 1 "-" "${CHROME}"`;
      await run(project.id, file(`${line}\n`));
      await assertRollups(project.id, [
        { hour: '2025-03-14T09:00:00.000Z', path: '/notes', trafficClass: 'human', views: 1 },
      ]);
    });
  });

  describe('the unknown-agents report', () => {
    test("imported views of unknown automated user agents are counted once, with the requests' times", async () => {
      const { project } = await seedProject(db());
      const at = (minute: number) => Date.UTC(2025, 2, 14, 9, minute, 0);
      const hit = (minute: number, ua: string, target = '/guide') => ({
        ip: '203.0.113.9',
        at: at(minute),
        method: 'GET',
        target,
        status: 200,
        ua,
        expect: { path: target, class: 'bot' as const },
      });
      const novel = 'Mozilla/5.0 (compatible; LogOnlyAgent/1.2; +https://log-only.example)';
      const path = file(
        logText([
          hit(1, novel),
          hit(2, novel, '/other'),
          hit(3, novel, '/img/x.png'), // an asset: dropped, not a view
          hit(4, CHROME),
          hit(5, 'GPTBot/1.3'),
          hit(6, novel),
        ]),
      );
      await run(project.id, path);
      await run(project.id, path); // the same log again: nothing new is counted
      const rows = await selectUnrecognizedAgents(db(), project.id, { limit: 10, offset: 0 });
      assert.deepEqual(
        rows.map((r) => [
          r.product,
          r.class,
          r.reason,
          Number(r.views),
          r.first_seen.toISOString(),
          r.last_seen.toISOString(),
        ]),
        [['LogOnlyAgent', 'bot', 'isbot', 3, new Date(at(1)).toISOString(), new Date(at(6)).toISOString()]],
      );
    });
  });
});

// The analytics page's "Where they read" card: the range's views per format (pages, Markdown,
// llms.txt, MCP calls), the same numbers as GET .../timeseries?split=format, and the most-called
// MCP tools from GET .../mcp-tools; and the top pages' format choice (GET .../views?format=),
// with its CSV download.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { createSetupToken } from '../../src/modules/accounts/users.ts';
import { createLogger } from '../../src/util/logger.ts';
import { postRecords } from '../analytics/ingest-helpers.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { InjectBrowser, PUBLIC_URL } from './helpers.ts';

const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';

await forEachBackend('analytics page: views per format', ({ db }) => {
  let app: App;
  before(async () => {
    app = await buildApp({
      db: db(),
      logger: createLogger('silent'),
      config: { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test', publicUrl: PUBLIC_URL },
      dashboard: { secretKey: randomBytes(32) },
    });
  });
  after(() => app.close());

  test('the card lists every format with its human and AI views, and the top MCP tools', async () => {
    const seeded = await seedProject(db());
    const owner = new InjectBrowser(app);
    await owner.get('/app/setup');
    const code = await createSetupToken(db());
    const done = await owner.post('/app/setup', { token: code!, ...OWNER, confirm: OWNER.password });
    assert.equal(done.status, 303);

    const posted = await postRecords(app, seeded.project.id, seeded.ingestKey, [
      { path: '/guide', userAgent: CHROME },
      { path: '/guide.md', userAgent: GPTBOT },
      { path: '/guide.md', userAgent: GPTBOT },
      { path: '/llms.txt', userAgent: GPTBOT },
      { type: 'mcp', tool: 'search_docs', clientName: 'claude-ai' },
      { type: 'mcp', tool: 'search_docs', clientName: 'cursor' },
      { type: 'mcp', tool: 'get_page', clientName: 'cursor' },
    ]);
    assert.equal(posted.statusCode, 202, posted.body);
    assert.equal(posted.json().accepted, 7);

    const page = await owner.get(`/app/projects/${seeded.project.id}/analytics`);
    assert.equal(page.status, 200, page.body.slice(0, 300));
    const row = (format: string) =>
      new RegExp(
        `<tr data-format="${format}"><td>[^<]+</td><td class="num">(\\d+)</td><td class="num">(\\d+)</td><td class="num">(\\d+)</td>`,
      )
        .exec(page.body)
        ?.slice(1)
        .map(Number);
    assert.deepEqual(row('html'), [1, 0, 1]);
    assert.deepEqual(row('markdown'), [0, 2, 2]);
    assert.deepEqual(row('llms'), [0, 1, 1]);
    assert.deepEqual(row('mcp'), [0, 3, 3]);
    assert.match(page.body, /Most-called MCP tools: <code>search_docs<\/code> 2, <code>get_page<\/code> 1\./);

    // The top pages served as Markdown: the pages' counts of that format only; the totals cards
    // still count every view; paging, the CSV link and the choice keep the format.
    const topPages = (body: string) =>
      [
        ...(/<table id="top-pages">[\s\S]*?<\/table>/.exec(body)?.[0] ?? '').matchAll(
          /<tr><td class="break"><code>([^<]+)<\/code><\/td><td class="num">(\d+)<\/td><td class="num">(\d+)<\/td><td class="num">(\d+)<\/td><\/tr>/g,
        ),
      ].map((m) => [m[1], Number(m[2]), Number(m[3]), Number(m[4])]);
    const base = `/app/projects/${seeded.project.id}/analytics`;
    assert.deepEqual(topPages(page.body), [
      ['/guide', 1, 2, 3],
      ['/mcp', 0, 3, 3],
      ['/llms.txt', 0, 1, 1],
    ]);
    const markdown = await owner.get(`${base}?format=markdown`);
    assert.equal(markdown.status, 200);
    assert.deepEqual(topPages(markdown.body), [['/guide', 0, 2, 2]]);
    assert.match(markdown.body, /<dd id="total-all">7<\/dd>/);
    assert.match(markdown.body, /<option value="markdown" selected>Markdown<\/option>/);
    assert.match(markdown.body, /views\.csv\?from=[\d-]+&amp;to=[\d-]+&amp;format=markdown"/);
    const none = await owner.get(`${base}?format=html&page=2`);
    assert.match(none.body, /No page views served as Pages \(HTML\) in this range on this page\./);
    const bad = await owner.get(`${base}?format=pdf`);
    assert.equal(bad.status, 200);
    assert.match(bad.body, /The format must be html, markdown, llms or mcp/);
    assert.deepEqual(topPages(bad.body), topPages(page.body));

    const csvUrl = /href="([^"]*views\.csv[^"]*)"/.exec(markdown.body)![1]!.replaceAll('&amp;', '&');
    const csv = await owner.get(csvUrl);
    assert.equal(csv.status, 200);
    assert.equal(csv.body, 'path,human,ai,total,format\r\n/guide,0,2,2,markdown\r\n');
    const plainCsv = await owner.get(csvUrl.replace('&format=markdown', ''));
    assert.match(plainCsv.body, /^path,human,ai,total\r\n\/guide,1,2,3\r\n/);
  });
});

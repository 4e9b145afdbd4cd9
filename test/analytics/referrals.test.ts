// Views referred by AI assistants (data/ai-referrers.json), on both engines through the real app:
// referrer hosts (parent domains too) and utm_source from the ingest API and the browser script,
// humans only, still human in /views, per assistant and page with paging and CSV; and the list's
// matching rules on their own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import {
  AiReferrers,
  curatedAiReferrers,
  utmSourceOf,
} from '../../src/modules/analytics/classification/ai-referrers.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { ingestTestApp, postRecords, viewsReport } from './ingest-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

test('the list matches referrer hosts and their subdomains, and utm_source; nothing else', () => {
  const list = curatedAiReferrers();
  assert.equal(list.assistantOf('https://chatgpt.com/c/abc?x=1', null)?.operator, 'OpenAI');
  assert.equal(list.assistantOf('https://www.perplexity.ai/search/q', null)?.name, 'Perplexity');
  assert.equal(list.assistantOf('https://user:pw@claude.ai/chat/1', null)?.name, 'Claude');
  assert.equal(list.assistantOf('https://GEMINI.google.com/', null)?.name, 'Gemini');
  assert.equal(list.assistantOf('https://copilot.microsoft.com/', null)?.operator, 'Microsoft');
  assert.equal(list.assistantOf('https://www.google.com/', null), null, 'a parent domain is not a subdomain');
  assert.equal(list.assistantOf('https://notchatgpt.com/', null), null);
  assert.equal(list.assistantOf('https://chatgpt.com.evil.example/', null), null);
  assert.equal(list.assistantOf('not a url', null), null);
  assert.equal(list.assistantOf(undefined, 'chatgpt.com')?.name, 'ChatGPT');
  assert.equal(list.assistantOf('https://www.google.com/', 'ChatGPT.com ')?.name, 'ChatGPT');
  assert.equal(utmSourceOf('/docs/a?utm_source=chatgpt.com&x=1'), 'chatgpt.com');
  assert.equal(utmSourceOf('/docs/a?x=1&utm_source=perplexity'), 'perplexity');
  assert.equal(utmSourceOf('/docs/a?utm_source=%E0%A4%A'), null, 'malformed escapes are ignored');
  assert.equal(utmSourceOf('/docs/a'), null);
  const custom = new AiReferrers([
    { name: 'X', operator: 'Y', hosts: ['x.example'], utmSources: [], sources: ['test'] },
  ]);
  assert.equal(custom.assistantOf('https://a.b.x.example/', null)?.name, 'X');
});

await forEachBackend('AI referrals', ({ db }) => {
  const referrals = async (
    app: Awaited<ReturnType<typeof ingestTestApp>>,
    projectId: string,
    key: string,
    query = '',
  ) => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${projectId}/referrals${query}`,
      headers: bearer(key),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const at = (hour: number) => new Date(Date.UTC(2026, 9, 21, hour, 5)).toISOString();

  test('ingested human views from assistants are counted per assistant and page, and stay human', async () => {
    const app = await ingestTestApp(db());
    const { project, ingestKey, readKey } = await seedProject(db());
    const res = await postRecords(app, project.id, ingestKey, [
      { path: '/a', userAgent: CHROME, referrer: 'https://chatgpt.com/', timestamp: at(9) },
      { url: 'https://docs.example.com/a?utm_source=chatgpt.com', userAgent: CHROME, timestamp: at(10) },
      { path: '/b', userAgent: CHROME, referrer: 'https://www.perplexity.ai/search/x', timestamp: at(10) },
      { path: '/b', userAgent: CHROME, referrer: 'https://www.google.com/', timestamp: at(11) },
      // An AI agent citing ChatGPT as its referrer is a crawl, not a referral.
      { path: '/a', userAgent: GPTBOT, referrer: 'https://chatgpt.com/', timestamp: at(11) },
      // The general path (headers present) counts the same way.
      {
        path: '/c',
        userAgent: CHROME,
        referrer: 'https://claude.ai/chat',
        headers: { accept: 'text/html' },
        timestamp: at(12),
      },
    ]);
    assert.equal(res.statusCode, 202, res.body);
    const report = await referrals(app, project.id, readKey, '?dateFrom=2026-10-21&dateTo=2026-10-22');
    assert.deepEqual(report.totals, { views: 4 });
    assert.deepEqual(report.assistants, [
      { assistant: 'ChatGPT', operator: 'OpenAI', views: 2 },
      { assistant: 'Claude', operator: 'Anthropic', views: 1 },
      { assistant: 'Perplexity', operator: 'Perplexity', views: 1 },
    ]);
    assert.deepEqual(report.referrals, [
      { assistant: 'ChatGPT', operator: 'OpenAI', path: '/a', views: 2 },
      { assistant: 'Claude', operator: 'Anthropic', path: '/c', views: 1 },
      { assistant: 'Perplexity', operator: 'Perplexity', path: '/b', views: 1 },
    ]);
    const views = await viewsReport(app, project.id, readKey, '?dateFrom=2026-10-21&dateTo=2026-10-22');
    assert.deepEqual(views.totals, { human: 5, ai: 1, total: 6 });
    // Crawls against referrals per operator, in /agents.
    const agents = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/agents?dateFrom=2026-10-21&dateTo=2026-10-22`,
      headers: bearer(readKey),
    });
    assert.deepEqual(agents.json().operators, [
      { operator: 'OpenAI', crawls: 1, referrals: 2 },
      { operator: 'Anthropic', crawls: 0, referrals: 1 },
      { operator: 'Perplexity', crawls: 0, referrals: 1 },
    ]);
    // Edge hours (10:00-11:00) read from the hourly level; paging and CSV as /views.
    const hour = await referrals(
      app,
      project.id,
      readKey,
      '?dateFrom=2026-10-21T10:00Z&dateTo=2026-10-21T11:00Z',
    );
    assert.deepEqual(hour.totals, { views: 2 });
    const page = await referrals(app, project.id, readKey, '?limit=1&offset=1');
    assert.deepEqual(page.referrals, [report.referrals[1]]);
    assert.equal(page.hasMore, true);
    const csv = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/referrals?limit=1`,
      headers: { ...bearer(readKey), accept: 'text/csv' },
    });
    assert.equal(csv.body, 'assistant,operator,path,views\r\nChatGPT,OpenAI,/a,2\r\n');
    await app.close();
  });

  test('the browser script sends document.referrer and utm_source; they name the assistant', async () => {
    const app = await buildApp({
      db: db(),
      logger: createLogger('silent'),
      config: {
        jobRateLimitPerHour: 100,
        defaultModel: 'openai:gpt-test',
        publicUrl: 'http://127.0.0.1:3000',
      },
      collect: { rateLimit: { burst: 10_000 } },
    });
    const { project, readKey } = await seedProject(db(), {
      settings: { allowedOrigins: ['https://docs.example.com'] },
    });
    const post = (body: object) =>
      app.inject({
        method: 'POST',
        url: `/v1/analytics/${project.id}/collect`,
        headers: {
          origin: 'https://docs.example.com',
          'user-agent': CHROME,
          'content-type': 'text/plain;charset=UTF-8',
        },
        payload: JSON.stringify(body),
      });
    assert.equal((await post({ path: '/x', referrer: 'https://gemini.google.com/app' })).statusCode, 202);
    assert.equal((await post({ path: '/x', utmSource: 'chatgpt.com' })).statusCode, 202);
    assert.equal((await post({ path: '/x', referrer: 'https://duckduckgo.com/' })).statusCode, 202);
    const tooLong = await post({ path: '/x', utmSource: 'x'.repeat(201) });
    assert.equal(tooLong.statusCode, 400);
    const report = await referrals(app, project.id, readKey);
    assert.deepEqual(
      report.assistants.map((a: { assistant: string; views: number }) => [a.assistant, a.views]),
      [
        ['ChatGPT', 1],
        ['Gemini', 1],
      ],
    );
    await app.close();
  });
});

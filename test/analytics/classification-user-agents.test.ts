import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toAgents } from '../../src/modules/analytics/classification/agent-list.ts';
import { classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import { TokenMatcher } from '../../src/modules/analytics/classification/token-matcher.ts';
import type { ClassifiedView, RequestRecord } from '../../src/modules/analytics/classification/types.ts';
import { UserAgentClassifier } from '../../src/modules/analytics/classification/user-agent-verdict.ts';
import { testContext } from './fixtures/context.ts';
import { USER_AGENT_CASES } from './fixtures/user-agents.ts';

const context = testContext();
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';

async function view(record: RequestRecord): Promise<ClassifiedView> {
  const outcome = await classifyRecord({ path: '/guide', ...record }, context);
  assert.ok(!('drop' in outcome), `unexpected drop ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('real user agents from public documentation', () => {
  test('the table covers every category, browsers and non-AI bots, each with a source', () => {
    const categories = new Set(USER_AGENT_CASES.map((c) => c.expected.category).filter(Boolean));
    assert.deepEqual([...categories].sort(), ['assistant', 'coding', 'search', 'training']);
    assert.ok(USER_AGENT_CASES.filter((c) => c.expected.class === 'human').length >= 5);
    assert.ok(USER_AGENT_CASES.filter((c) => c.expected.class === 'bot').length >= 10);
    for (const c of USER_AGENT_CASES)
      assert.ok(c.sources.length > 0 && c.sources.every((s) => s.startsWith('http')));
  });

  for (const c of USER_AGENT_CASES) {
    test(`${c.expected.class} ${c.expected.agent || ''}: ${c.userAgent.slice(0, 90)}`, async () => {
      const result = await view({ userAgent: c.userAgent });
      assert.equal(result.class, c.expected.class);
      assert.equal(result.agent, c.expected.agent);
      if (c.expected.category) assert.equal(result.category, c.expected.category);
      if (result.class !== 'ai') assert.equal(result.category, undefined);
    });
  }

  test('other_ai is what unknown Markdown clients get', async () => {
    const result = await view({ path: '/guide.md', userAgent: 'python-requests/2.32.3' });
    assert.equal(result.category, 'other_ai');
  });
});

describe('whole-word matching', () => {
  const matcher = new TokenMatcher(
    ['Cursor', 'Code', 'ClaudeBot', 'Spider', 'bigsur.ai'].map((token) => ({ token, value: token })),
  );
  const cases: [string, string | null][] = [
    ['Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) CursorBrowser/1.2 Safari/537.36', null],
    ['SuperCursor/3.0', null],
    ['Mozilla/5.0 (compatible; VSCode/1.90)', null],
    ['Bytespider', null],
    ['ClaudeBot-Extended/1.0', null],
    ['xClaudeBot/1.0', null],
    ['Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', 'ClaudeBot'],
    ['claudebot/1.0', 'ClaudeBot'],
    ['Cursor/0.42 (agent)', 'Cursor'],
    ['Mozilla/5.0 (compatible; bigsur.ai)', 'bigsur.ai'],
  ];
  for (const [userAgent, expected] of cases) {
    test(`${userAgent} → ${expected}`, () => assert.equal(matcher.match(userAgent)?.value ?? null, expected));
  }

  test('a browser whose name contains "Cursor" is not a coding agent, even with Cursor in a loaded list', async () => {
    const agents = toAgents(
      [
        {
          name: 'Cursor',
          tokens: ['Cursor'],
          operator: 'Anysphere',
          category: 'coding',
          docs: 'x',
          sources: ['x'],
        },
      ],
      'test',
    );
    const classifier = new UserAgentClassifier(agents);
    const verdict = classifier.classify(
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) CursorBrowser/1.2 Chrome/124.0.0.0 Safari/537.36',
    );
    assert.equal(verdict.agent, null);
    assert.equal(verdict.browser, true);
  });

  test('the earliest listed entry wins when several tokens match', async () => {
    const result = await view({
      userAgent: 'Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)',
    });
    assert.equal(result.agent, 'Claude Code');
    assert.equal(result.evidence.token, 'claude-code');
  });
});

describe('Markdown fetches', () => {
  test('a .md path fetched by a script is ai (markdown-client)', async () => {
    const result = await view({ path: '/guide.md', userAgent: 'axios/1.8.4' });
    assert.deepEqual(
      {
        class: result.class,
        agent: result.agent,
        path: result.path,
        markdown: result.markdown,
        evidence: result.evidence,
      },
      {
        class: 'ai',
        agent: 'markdown-client',
        path: '/guide',
        markdown: true,
        evidence: { rule: 'markdown_client', markdown: 'md_path', ip: 'no_ranges' },
      },
    );
  });

  test('an Accept header preferring Markdown is ai even behind a browser user agent', async () => {
    const result = await view({
      userAgent: CHROME,
      accept: 'text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1',
    });
    assert.equal(result.class, 'ai');
    assert.equal(result.evidence.markdown, 'accept');
  });

  test('a .md path opened in a browser stays human', async () => {
    const result = await view({
      path: '/guide.md',
      userAgent: CHROME,
      accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
    });
    assert.equal(result.class, 'human');
    assert.equal(result.markdown, true);
  });

  test('a search engine fetching a .md stays a bot', async () => {
    const result = await view({
      path: '/guide.md',
      userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    });
    assert.equal(result.class, 'bot');
    assert.equal(result.agent, 'Googlebot');
  });

  test('a named AI agent keeps its own name on a .md fetch', async () => {
    const result = await view({ path: '/guide.md', userAgent: 'GPTBot/1.3' });
    assert.equal(result.agent, 'GPTBot');
    assert.equal(result.markdown, true);
  });

  test('a script fetching HTML is a bot, not ai', async () => {
    const result = await view({ userAgent: 'curl/8.7.1', accept: '*/*' });
    assert.equal(result.class, 'bot');
  });

  test('no user agent: bot, unless it asks for Markdown', async () => {
    assert.deepEqual((await view({})).agent, 'no-user-agent');
    assert.deepEqual((await view({ userAgent: '-' })).class, 'bot');
    assert.deepEqual((await view({ path: '/x.md' })).class, 'ai');
  });
});

describe('user-agent cache', () => {
  test('classifies each distinct string once while it stays cached', () => {
    const classifier = new UserAgentClassifier(context.agents, 2);
    classifier.classify('GPTBot/1.3');
    classifier.classify('GPTBot/1.3');
    classifier.classify(CHROME);
    assert.equal(classifier.misses, 2);
    classifier.classify('curl/8');
    classifier.classify('GPTBot/1.3'); // evicted by the bound of 2
    assert.equal(classifier.misses, 4);
  });

  test('a cached verdict does not leak per-record facts between records', async () => {
    const first = await view({ path: '/a.md', userAgent: 'node' });
    const second = await view({ path: '/a', userAgent: 'node' });
    assert.equal(first.class, 'ai');
    assert.equal(second.class, 'bot');
  });
});

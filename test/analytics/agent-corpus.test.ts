import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadAgentListDocument } from '../../src/modules/analytics/classification/agent-list.ts';
import { ProductMatcher } from '../../src/modules/analytics/classification/product-matcher.ts';
import { curatedNames, uncoveredKeys } from '../../src/modules/analytics/classification/robots-json.ts';
import { checkAgentCorpus } from './agent-corpus-check.ts';
import { AGENT_CORPUS } from './fixtures/agent-corpus.ts';
import { testContext } from './fixtures/context.ts';

describe('AI-agent regression corpus', () => {
  test('every AI string is AI under its entry, every browser human, every other bot a bot', async () => {
    const result = await checkAgentCorpus(testContext(), AGENT_CORPUS);
    assert.deepEqual(result.failures, []);
    assert.ok(result.ai.total >= 140 && result.human.total >= 10 && result.bot.total >= 20);
  });

  test('every entry a user agent can name has a string, and every string a source', async () => {
    const result = await checkAgentCorpus(testContext(), AGENT_CORPUS);
    assert.deepEqual(result.entriesWithoutString, []);
    for (const entry of AGENT_CORPUS) assert.ok(entry.sources.every((s) => /^https?:\/\//.test(s)));
  });

  test('AI search, coding and browser agents are listed', () => {
    const names = new Set(loadAgentListDocument().agents.map((agent) => agent.name));
    for (const name of [
      'DeepSeekBot',
      'TavilyBot',
      'FirecrawlAgent',
      'Devin',
      'opencode',
      'Codex',
      'Cursor',
      'GitHub Copilot',
      'Project Mariner',
      'Nova Act',
      'Manus-User',
      'Google-NotebookLM',
    ]) {
      assert.ok(names.has(name), name);
    }
  });

  test('ai.robots.txt names that are common words or not AI are covered by a decision', () => {
    const list = loadAgentListDocument();
    const covered = curatedNames(list.agents, list.notAi);
    const keys = ['Operator', 'Code', 'Cursor', 'Trae', 'YaK', 'LCC', 'Spider', 'Applebot', 'PetalBot'];
    assert.deepEqual(uncoveredKeys(Object.fromEntries(keys.map((k) => [k, {}])), covered), []);
    assert.deepEqual(uncoveredKeys({ 'NewBot/1.0': {} }, covered), ['NewBot/1.0']);
    for (const entry of list.notAi) assert.ok(entry.reason.length > 20 && entry.sources.length > 0);
  });
});

describe('products matched in their exact form outside browsers', () => {
  const matcher = new ProductMatcher([{ product: 'Cursor', value: 'Cursor' }]);
  const cases: [string, string | null][] = [
    ['Cursor/1.7.2 (darwin; arm64)', 'Cursor'],
    ['Mozilla/5.0 (compatible; Cursor/2.0)', 'Cursor'],
    ['cursor/1.7.2', null],
    ['Cursor', null],
    ['MyCursor/1.0', null],
    ['Cursor/beta', null],
    [
      'Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/1.7.44 Chrome/132.0 Electron/34.5.8 Safari/537.36',
      null,
    ],
  ];
  for (const [userAgent, expected] of cases) {
    test(`${userAgent} → ${expected}`, () => {
      assert.equal(matcher.match(userAgent)?.value ?? null, expected);
    });
  }
});

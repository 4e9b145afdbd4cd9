import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  AgentListError,
  loadAgentList,
  parseAgentList,
} from '../../src/modules/analytics/classification/agent-list.ts';
import { classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import {
  categoryFromFunction,
  loadRobotsJson,
  parseRobotsJson,
} from '../../src/modules/analytics/classification/robots-json.ts';
import { AGENT_CATEGORIES } from '../../src/modules/analytics/classification/types.ts';
import { testContext } from './fixtures/context.ts';

const EXTRA = fileURLToPath(new URL('./fixtures/robots-extra.json', import.meta.url));

describe('curated agent list (data/ai-agents.json)', () => {
  const agents = loadAgentList();
  const byName = new Map(agents.map((agent) => [agent.name, agent]));

  test('covers the major AI crawlers, assistants and search agents', () => {
    for (const name of [
      'GPTBot',
      'OAI-SearchBot',
      'ChatGPT-User',
      'ChatGPT agent',
      'ClaudeBot',
      'Claude-User',
      'Claude-SearchBot',
      'PerplexityBot',
      'Perplexity-User',
      'Google-CloudVertexBot',
      'meta-externalagent',
      'Applebot-Extended',
      'Amazonbot',
      'Bytespider',
      'CCBot',
      'MistralAI-User',
      'DuckAssistBot',
      'cohere-ai',
      'YouBot',
    ]) {
      assert.ok(byName.has(name), `missing ${name}`);
    }
    assert.ok(agents.some((agent) => agent.category === 'coding'));
  });

  test('every entry has an operator, a category, documentation and sources', () => {
    for (const agent of agents) {
      assert.ok(AGENT_CATEGORIES.includes(agent.category), agent.name);
      assert.match(agent.docs, /^https:\/\//, agent.name);
      assert.ok(agent.sources.length > 0 && agent.sources.every((s) => /^https:\/\//.test(s)), agent.name);
    }
  });

  test('robots.txt-only tokens never match a request', () => {
    assert.deepEqual(byName.get('Applebot-Extended')?.tokens, []);
    assert.deepEqual(byName.get('Google-Extended')?.tokens, []);
  });

  test('published ranges are compiled; Anthropic publishes none', () => {
    for (const name of [
      'GPTBot',
      'OAI-SearchBot',
      'ChatGPT-User',
      'Perplexity-User',
      'MistralAI-User',
      'CCBot',
    ]) {
      const agent = byName.get(name)!;
      assert.ok(agent.ipRanges && agent.ipRanges.prefixes.length > 0, name);
      assert.ok(agent.ranges !== null, name);
      assert.match(agent.ipRanges.publishedAt, /^\d{4}-\d{2}-\d{2}$/);
    }
    for (const name of ['ClaudeBot', 'Claude-User', 'Claude-SearchBot'])
      assert.equal(byName.get(name)?.ranges, null);
  });

  test('ChatGPT agent is recognised by its Signature-Agent, not a token', () => {
    assert.deepEqual(byName.get('ChatGPT agent')?.signatureAgents, ['https://chatgpt.com']);
    assert.deepEqual(testContext().agentsBySignatureOrigin.get('https://chatgpt.com')?.name, 'ChatGPT agent');
  });

  test('no curated token is a generic word', () => {
    for (const agent of agents) {
      for (const token of agent.tokens)
        assert.ok(!['spider', 'code', 'cursor', 'operator'].includes(token.toLowerCase()));
    }
  });
});

describe('agent list validation', () => {
  const good = {
    name: 'X',
    tokens: ['XBot'],
    operator: 'X',
    category: 'search',
    docs: 'https://x',
    sources: ['https://x'],
  };

  test('a bad category, a bad CIDR or an entry that can never match is refused with a clear message', () => {
    assert.throws(
      () => parseAgentList({ agents: [{ ...good, category: 'crawler' }] }, 'list.json'),
      (error: Error) => {
        assert.ok(error instanceof AgentListError);
        assert.match(error.message, /list\.json is invalid: \/agents\/0\/category/);
        return true;
      },
    );
    assert.throws(
      () =>
        parseAgentList(
          { agents: [{ ...good, ipRanges: { url: 'u', publishedAt: 'd', prefixes: ['10.0.0.0/33'] } }] },
          'l',
        ),
      /X: "10\.0\.0\.0\/33" is not an IPv4 or IPv6 CIDR prefix/,
    );
    assert.throws(
      () => parseAgentList({ agents: [{ ...good, tokens: [] }] }, 'l'),
      /X: no tokens, products or signature agents/,
    );
    assert.throws(() => parseAgentList({ agents: [{ ...good, sources: [] }] }, 'l'), /sources/);
  });

  test('an unreadable or non-JSON file names the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agents-'));
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{ not json');
    assert.throws(() => loadAgentList(path), /broken\.json is invalid: is not JSON/);
    assert.throws(() => loadAgentList(join(dir, 'absent.json')), /absent\.json is invalid: cannot be read/);
  });
});

describe('extra lists in the ai.robots.txt robots.json format', () => {
  test('maps "function" to a category; unknown → other_ai', () => {
    assert.equal(categoryFromFunction('AI Assistants'), 'assistant');
    assert.equal(categoryFromFunction('AI Agents'), 'assistant');
    assert.equal(categoryFromFunction('AI Search Crawlers'), 'search');
    assert.equal(categoryFromFunction('AI Coding Agents'), 'coding');
    assert.equal(categoryFromFunction('AI Data Scrapers'), 'training');
    assert.equal(categoryFromFunction("Scrapes data to train OpenAI's products."), 'training');
    assert.equal(categoryFromFunction('Search result generation.'), 'search');
    assert.equal(
      categoryFromFunction('Retrieves data to provide responses to user-initiated prompts.'),
      'assistant',
    );
    assert.equal(categoryFromFunction('Unclear at this time.'), 'other_ai');
    assert.equal(categoryFromFunction(undefined), 'other_ai');
  });

  test('loads tokens, strips versions, skips generic words', () => {
    const { agents, skipped } = loadRobotsJson(EXTRA);
    const byName = new Map(agents.map((agent) => [agent.name, agent]));
    assert.equal(byName.get('ExampleAssistant-User')?.category, 'assistant');
    assert.equal(byName.get('ExampleAssistant-User')?.operator, 'Example AI');
    assert.equal(byName.get('ExampleAssistant-User')?.docs, 'https://example.ai/bots');
    assert.equal(byName.get('ExampleTrainer')?.category, 'training');
    assert.deepEqual(byName.get('ExampleTrainer')?.tokens, ['ExampleTrainer']);
    assert.equal(byName.get('ExampleSearch')?.operator, 'unknown');
    assert.equal(byName.get('ExampleCoder')?.category, 'coding');
    assert.equal(byName.get('ExampleMystery')?.category, 'other_ai');
    assert.deepEqual(skipped.map((s) => s.token).sort(), ['Cursor', 'Spider']);
    assert.ok(!byName.has('Cursor'));
  });

  test('extra agents classify requests; the curated list wins on a shared token', async () => {
    const context = testContext({ extraLists: [EXTRA] });
    const trainer = await classifyRecord(
      { path: '/x', userAgent: 'Mozilla/5.0 (compatible; ExampleTrainer/2.2)' },
      context,
    );
    assert.ok(!('drop' in trainer));
    assert.deepEqual([trainer.class, trainer.agent, trainer.category], ['ai', 'ExampleTrainer', 'training']);
    const gpt = await classifyRecord({ path: '/x', userAgent: 'GPTBot/1.3' }, context);
    assert.ok(!('drop' in gpt));
    assert.equal(gpt.operator, 'OpenAI');
    // The extra list's bare "Cursor" is skipped; the curated entry matches only its exact form.
    const agent = await classifyRecord({ path: '/x', userAgent: 'Cursor/0.42 (agent)' }, context);
    assert.ok(!('drop' in agent));
    assert.deepEqual([agent.class, agent.agent, agent.category], ['ai', 'Cursor', 'coding']);
    const editor = await classifyRecord(
      {
        path: '/x',
        userAgent:
          'Mozilla/5.0 (Macintosh) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.42 Chrome/132.0 Electron/34.5.8 Safari/537.36',
      },
      context,
    );
    assert.ok(!('drop' in editor));
    assert.notEqual(editor.class, 'ai');
  });

  test('the shared reference file loads as an extra list when it is present', (t) => {
    const shared = fileURLToPath(new URL('../../../shared/data/ai-robots.json', import.meta.url));
    let load: ReturnType<typeof loadRobotsJson>;
    try {
      load = loadRobotsJson(shared);
    } catch {
      t.skip('shared/data/ai-robots.json is not beside this checkout');
      return;
    }
    assert.ok(load.agents.length > 100);
    assert.ok(load.skipped.some((s) => s.token === 'Cursor'));
  });

  test('a file that is not a token map is refused', () => {
    assert.throws(() => parseRobotsJson([], 'list'), /must be a JSON object mapping user-agent tokens/);
    assert.throws(() => parseRobotsJson({ X: 'y' }, 'list'), /entry "X" must be an object/);
  });
});

describe('agent summary (for `docwright agents list`)', () => {
  test('says how each agent can be verified and where it came from', async () => {
    const { summariseAgents } = await import('../../src/modules/analytics/classification/agent-summary.ts');
    const rows = summariseAgents(testContext({ extraLists: [EXTRA] }));
    const gpt = rows.find((row) => row.name === 'GPTBot')!;
    assert.deepEqual([gpt.verifiedBy, gpt.origin, gpt.ipPrefixes > 0], [['ip_ranges'], 'curated', true]);
    assert.deepEqual(rows.find((row) => row.name === 'ChatGPT agent')?.verifiedBy, ['web_bot_auth']);
    assert.deepEqual(rows.find((row) => row.name === 'ClaudeBot')?.verifiedBy, []);
    assert.equal(rows.find((row) => row.name === 'ExampleCoder')?.origin, EXTRA);
  });
});

describe('docs/traffic-classification.md', () => {
  test('lists every curated agent and every drop reason', async () => {
    const { readFileSync } = await import('node:fs');
    const { DROP_REASONS } = await import('../../src/modules/analytics/classification/types.ts');
    const doc = readFileSync(
      fileURLToPath(new URL('../../docs/traffic-classification.md', import.meta.url)),
      'utf8',
    );
    for (const agent of loadAgentList())
      assert.ok(doc.includes(`| ${agent.name} |`), `docs miss ${agent.name}`);
    for (const reason of DROP_REASONS) assert.ok(doc.includes(`| \`${reason}\` |`), `docs miss ${reason}`);
  });
});

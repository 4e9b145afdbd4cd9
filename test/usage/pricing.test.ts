// Prices applied to what the providers report, through the real AI SDK clients: the scripted model
// stand-in answers in Anthropic's and OpenAI's wire formats with prompt-cache tokens, the agent
// loop reads them, and the price table turns them into dollars that must equal a hand computation
// from the list prices in data/model-prices.json. Also: which entry of the table wins.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildAgentInstructions } from '../../src/agent/instructions.ts';
import { DEFAULT_AGENT_LIMITS } from '../../src/agent/limits.ts';
import { type AgentStepEvent, runAgent } from '../../src/agent/loop.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import type { ModelProvider } from '../../src/models/model-spec.ts';
import { resolveModel } from '../../src/models/resolve.ts';
import { costOf, loadPriceTable, PriceTable, PriceTableError } from '../../src/modules/usage/index.ts';
import { memoryRepositoryTools } from '../agent/loop-helpers.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

const KEY = 'sk-pricing-test-key-0123456789';
let server: ScriptedLlmServer;
before(async () => {
  server = await startScriptedLlmServer({ apiKey: KEY });
});
after(() => server.close());

const table = loadPriceTable();

// Two steps, each with its own usage: total input (cache included), output, cache reads, writes.
const STEP_USAGE = [
  { inputTokens: 12_000, outputTokens: 350, cacheReadTokens: 0, cacheWriteTokens: 9_000 },
  { inputTokens: 12_800, outputTokens: 120, cacheReadTokens: 9_000, cacheWriteTokens: 0 },
];

/**
 * By hand, from the list prices (USD per million tokens):
 * - anthropic:claude-sonnet-4-5: input 3, output 15, cache write 3.75, cache read 0.30.
 *   step 1: 3000 × 3 + 0 × 0.30 + 9000 × 3.75 + 350 × 15 = 9000 + 33750 + 5250 = 48000 → $0.048
 *   step 2: 3800 × 3 + 9000 × 0.30 + 0 + 120 × 15 = 11400 + 2700 + 1800 = 15900 → $0.0159
 * - openai:gpt-4.1: input 2, cached input 0.50, output 8; OpenAI reports no cache writes, so the
 *   9000 written tokens of step 1 are plain input there.
 *   step 1: 12000 × 2 + 350 × 8 = 24000 + 2800 = 26800 → $0.0268
 *   step 2: 3800 × 2 + 9000 × 0.50 + 120 × 8 = 7600 + 4500 + 960 = 13060 → $0.01306
 */
const BY_HAND: Record<'anthropic' | 'openai', { model: string; steps: number[]; cacheWrite: number }> = {
  anthropic: { model: 'claude-sonnet-4-5-20250929', steps: [0.048, 0.0159], cacheWrite: 9_000 },
  openai: { model: 'gpt-4.1', steps: [0.0268, 0.01306], cacheWrite: 0 },
};

for (const provider of ['anthropic', 'openai'] as const) {
  for (const streaming of [false, true]) {
    test(`${provider}${streaming ? ' streaming' : ''}: cache tokens on the wire are priced as the list prices say`, async () => {
      const expected = BY_HAND[provider];
      server.enqueue(
        reply.toolCall('read_file', { path: 'docs/a.md' }, { usage: STEP_USAGE[0]! }),
        reply.toolCall('finish', { title: 'Done', summary: 'Read it.' }, { usage: STEP_USAGE[1]! }),
      );
      const resolved = resolveModel({
        projectModel: `${provider satisfies ModelProvider}:${expected.model}`,
        defaultModel: null,
        serverCredentials: { [provider]: { apiKey: KEY, baseURL: server.baseURL } },
      });
      const price = table.priceOf(resolved.name);
      assert.ok(price, `the built-in table prices ${resolved.name}`);
      const events: AgentStepEvent[] = [];
      const outcome = await runAgent({
        model: resolved.model,
        modelName: resolved.name,
        tools: memoryRepositoryTools({ 'docs/a.md': '# A\n' }),
        instructions: buildAgentInstructions({ prompt: 'Read docs/a.md' }),
        limits: DEFAULT_AGENT_LIMITS,
        streaming,
        onStep: (event) => {
          events.push(event);
          return { costUsd: costOf(price, { ...event.usage }) };
        },
      });
      assert.equal(outcome.stoppedBy, 'finish');
      assert.deepEqual(
        events.map((e) => e.usage.cacheReadTokens),
        [0, 9_000],
      );
      assert.deepEqual(
        events.map((e) => e.usage.cacheWriteTokens),
        [expected.cacheWrite, 0],
      );
      // The SDK's inputTokens holds every input token, cached or not, for both providers.
      assert.deepEqual(
        events.map((e) => e.usage.inputTokens),
        [12_000, 12_800],
      );
      const costs = events.map((e) => costOf(price, e.usage));
      assert.deepEqual(costs, expected.steps);
      assert.equal(outcome.usage.costUsd, expected.steps[0]! + expected.steps[1]!);
      assert.equal(outcome.usage.cacheReadTokens, 9_000);
    });
  }
}

describe('the price table', () => {
  test('an exact id wins over a pattern, a longer pattern over a shorter one', () => {
    const t = new PriceTable([
      [
        { provider: 'openai', model: 'gpt-*', inputPerMillion: 1, outputPerMillion: 1 },
        { provider: 'openai', model: 'gpt-4.1*', inputPerMillion: 2, outputPerMillion: 2 },
        { provider: 'openai', model: 'gpt-4.1-mini', inputPerMillion: 3, outputPerMillion: 3 },
      ],
    ]);
    assert.equal(t.priceOf('openai:gpt-4.1-mini')?.inputPerMillion, 3);
    assert.equal(t.priceOf('openai:gpt-4.1-nano')?.inputPerMillion, 2);
    assert.equal(t.priceOf('openai:gpt-5')?.inputPerMillion, 1);
    assert.equal(t.priceOf('anthropic:gpt-4.1'), null, 'the provider must match');
    assert.equal(t.priceOf('openai:o3'), null);
    assert.equal(t.priceOf('no-colon'), null);
  });

  test("a project's prices win over the deployment's and the built-in ones; unknown models have none", () => {
    assert.equal(table.priceOf('openai-compatible:llama3.1:8b'), null);
    const project = table.withOverrides([
      { provider: 'openai-compatible', model: '*', inputPerMillion: 0, outputPerMillion: 0 },
      { provider: 'openai', model: 'gpt-4.1', inputPerMillion: 1, outputPerMillion: 4 },
    ]);
    assert.equal(project.priceOf('openai-compatible:llama3.1:8b')?.inputPerMillion, 0);
    assert.equal(project.priceOf('openai:gpt-4.1')?.outputPerMillion, 4);
    assert.equal(project.priceOf('anthropic:claude-haiku-4-5')?.inputPerMillion, 1, 'built-in still used');
  });

  test('cache prices left out are the input price', () => {
    const price = { provider: 'x', model: 'y', inputPerMillion: 2, outputPerMillion: 10 };
    assert.equal(
      costOf(price, {
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheReadTokens: 500_000,
        cacheWriteTokens: 0,
      }),
      2,
    );
  });

  test('every built-in entry names its source and date, in US dollars', () => {
    const entries = (
      table as unknown as { layers: { source?: string; takenOn?: string; currency?: string }[][] }
    ).layers[0]!;
    assert.ok(entries.length > 10);
    for (const entry of entries) {
      assert.match(entry.source ?? '', /^https:\/\//);
      assert.match(entry.takenOn ?? '', /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(entry.currency, 'USD');
    }
  });
});

describe("a deployment's price file (DOCWRIGHT_MODEL_PRICES_FILE)", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docwright-prices-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('its entries win over the built-in ones; the rest stay', async () => {
    const path = join(dir, 'prices.json');
    await writeFile(
      path,
      JSON.stringify({
        prices: [{ provider: 'openai', model: 'gpt-4.1', inputPerMillion: 1.5, outputPerMillion: 6 }],
      }),
    );
    const config = loadConfig({ DOCWRIGHT_MODEL_PRICES_FILE: 'prices.json' }, dir);
    assert.equal(config.modelPricesFile, path);
    const deployed = loadPriceTable(config.modelPricesFile);
    assert.equal(deployed.priceOf('openai:gpt-4.1')?.inputPerMillion, 1.5);
    assert.equal(deployed.priceOf('openai:gpt-4.1-mini')?.inputPerMillion, 0.4);
  });

  test('a missing file is a configuration problem; a malformed one names the file and the field', async () => {
    assert.throws(
      () => loadConfig({ DOCWRIGHT_MODEL_PRICES_FILE: 'nowhere.json' }, dir),
      (error: Error) =>
        error instanceof ConfigError &&
        /DOCWRIGHT_MODEL_PRICES_FILE names .*nowhere\.json/.test(error.message),
    );
    const bad = join(dir, 'bad.json');
    for (const [content, where] of [
      [
        '{"prices": [{"provider": "openai", "model": "x", "inputPerMillion": -1, "outputPerMillion": 1}]}',
        /\/prices\/0\/inputPerMillion/,
      ],
      [
        '{"prices": [{"provider": "openai", "model": "x", "inputPerMillion": 1, "outputPerMillion": 1, "currency": "EUR"}]}',
        /currency/,
      ],
      ['{"prices": "none"}', /\/prices/],
      ['not json', /could not be read as JSON/],
    ] as const) {
      await writeFile(bad, content);
      assert.throws(
        () => loadPriceTable(bad),
        (error: Error) =>
          error instanceof PriceTableError && error.message.includes(bad) && where.test(error.message),
        content,
      );
    }
  });
});

// The agent loop against the scripted LLM server, through the real provider packages: how each
// run ends (finish, no more tool calls, every bound, stuck, cancel), what the model is sent, and
// what the per-step callback reports.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildAgentInstructions, SYSTEM_PROMPT } from '../../src/agent/instructions.ts';
import { type AgentLimits, DEFAULT_AGENT_LIMITS, resolveAgentLimits } from '../../src/agent/limits.ts';
import { type AgentStepEvent, runAgent } from '../../src/agent/loop.ts';
import { ModelFailure } from '../../src/models/errors.ts';
import type { ModelProvider } from '../../src/models/model-spec.ts';
import type { ModelOptions } from '../../src/models/providers.ts';
import { resolveModel } from '../../src/models/resolve.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';
import { memoryRepositoryTools } from './loop-helpers.ts';

const KEY = 'sk-loop-test-key-0123456789';
let server: ScriptedLlmServer;
before(async () => {
  server = await startScriptedLlmServer({ apiKey: KEY });
});
after(() => server.close());

const MODEL_IDS: Record<ModelProvider, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
  'openai-compatible': 'llama3.1:8b',
};

function model(provider: ModelProvider = 'openai', options: Omit<ModelOptions, 'retry'> = {}) {
  return resolveModel(
    {
      projectModel: `${provider}:${MODEL_IDS[provider]}`,
      defaultModel: null,
      serverCredentials: { [provider]: { apiKey: KEY, baseURL: server.baseURL } },
    },
    { retry: { baseDelayMs: 1, maxDelayMs: 20 }, ...options },
  );
}

const limits = (overrides: Partial<AgentLimits> = {}): AgentLimits => ({
  ...DEFAULT_AGENT_LIMITS,
  ...overrides,
});

/** Starts a test from an empty script, whatever an earlier test left behind. */
function freshScript(): number {
  server.setFallback(null);
  return server.requests.length;
}

for (const [provider, streaming] of [
  ['anthropic', false],
  ['anthropic', true],
  ['openai', false],
  ['openai-compatible', true],
] as const) {
  test(`${provider}${streaming ? ' streaming' : ''}: the model reads a page, edits it from what it read, and finishes`, async () => {
    const first = freshScript();
    const files = { 'docs/install.md': '# Install\n\nRun `npm install docwrite`.\n' };
    server.enqueue(
      reply.toolCall('read_file', { path: 'docs/install.md' }),
      (request) => {
        // The edit is derived from the tool result the model received, as a real model's would be.
        const page = request.latestToolResults[0]!.output;
        const wrong = page.match(/npm install (\w+)/)![0];
        return reply.toolCall('edit_file', {
          path: 'docs/install.md',
          old_text: wrong,
          new_text: 'npm install docwright',
        });
      },
      reply.toolCall('finish', {
        title: 'Fix the package name in the install guide',
        summary: 'docs/install.md: docwrite → docwright.',
      }),
    );
    const resolved = model(provider);
    const events: AgentStepEvent[] = [];
    const outcome = await runAgent({
      model: resolved.model,
      modelName: resolved.name,
      tools: memoryRepositoryTools(files),
      instructions: buildAgentInstructions({ prompt: 'Fix the package name in the install guide.' }),
      limits: limits(),
      streaming,
      onStep: (e) => void events.push(e),
    });
    assert.equal(files['docs/install.md'], '# Install\n\nRun `npm install docwright`.\n');
    assert.equal(outcome.stoppedBy, 'finish');
    assert.equal(outcome.title, 'Fix the package name in the install guide');
    assert.equal(outcome.summary, 'docs/install.md: docwrite → docwright.');
    assert.equal(outcome.model, `${provider}:${MODEL_IDS[provider]}`);
    assert.equal(outcome.usage.steps, 3);
    assert.equal(server.requests.length - first, 3);
    assert.ok(outcome.usage.inputTokens > 0 && outcome.usage.outputTokens > 0);
    assert.equal(
      outcome.usage.inputTokens + outcome.usage.outputTokens,
      events.reduce((n, e) => n + e.usage.inputTokens + e.usage.outputTokens, 0),
    );
    assert.deepEqual(
      events.map((e) => e.toolCalls.map((c) => [c.toolName, c.path, c.ok])),
      [
        [['read_file', 'docs/install.md', true]],
        [['edit_file', 'docs/install.md', true]],
        [['finish', undefined, true]],
      ],
    );
    assert.deepEqual(events.at(-1)!.totalUsage, outcome.usage);
  });
}

test('a model that answers without tools ends the run: no_more_tool_calls, with its text', async () => {
  freshScript();
  server.enqueue(reply.text('There is nothing to change.'));
  const resolved = model('anthropic');
  const outcome = await runAgent({
    model: resolved.model,
    modelName: resolved.name,
    tools: memoryRepositoryTools({}),
    instructions: buildAgentInstructions({ prompt: 'Anything to fix?' }),
    limits: limits(),
  });
  assert.equal(outcome.stoppedBy, 'no_more_tool_calls');
  assert.equal(outcome.finalText, 'There is nothing to change.');
  assert.equal(outcome.title, undefined);
  assert.equal(outcome.usage.steps, 1);
});

describe('bounds end the run with an outcome, not an error', () => {
  test('max steps: the last step offers only finish, and the run says max_steps', async () => {
    const first = freshScript();
    server.setFallback((request) =>
      request.toolNames.length === 1
        ? reply.toolCall('finish', { title: 'Partial edit', summary: 'Ran out of steps.' })
        : reply.toolCall('read_file', { path: 'a.md' }),
    );
    const resolved = model('openai');
    const outcome = await runAgent({
      model: resolved.model,
      modelName: resolved.name,
      tools: memoryRepositoryTools({ 'a.md': 'A' }),
      instructions: buildAgentInstructions({ prompt: 'Keep reading.' }),
      limits: limits({ maxSteps: 4 }),
    });
    assert.equal(outcome.stoppedBy, 'max_steps');
    assert.equal(outcome.usage.steps, 4);
    assert.equal(outcome.title, 'Partial edit');
    const seen = server.requests.slice(first);
    assert.equal(seen.length, 4);
    assert.deepEqual(
      seen.map((r) => r.toolNames.length),
      [3, 3, 3, 1],
    );
    assert.deepEqual(seen[3]!.toolNames, ['finish']);
    assert.deepEqual(seen[3]!.body.tool_choice, { type: 'function', function: { name: 'finish' } });
  });

  test('max steps without a finish on the last step still stops there', async () => {
    const first = freshScript();
    server.setFallback(reply.toolCall('read_file', { path: 'a.md' }));
    const resolved = model('anthropic');
    const outcome = await runAgent({
      model: resolved.model,
      tools: memoryRepositoryTools({ 'a.md': 'A' }),
      instructions: buildAgentInstructions({ prompt: 'Keep reading.' }),
      limits: limits({ maxSteps: 3 }),
    });
    assert.equal(outcome.stoppedBy, 'max_steps');
    assert.equal(outcome.usage.steps, 3);
    assert.equal(server.requests.length - first, 3);
    assert.deepEqual(server.requests.at(-1)!.body.tool_choice, { type: 'tool', name: 'finish' });
  });

  test('token bound: stops once input plus output tokens reach it', async () => {
    const first = freshScript();
    server.setFallback(
      reply.toolCall('read_file', { path: 'a.md' }, { usage: { inputTokens: 400, outputTokens: 100 } }),
    );
    const resolved = model('anthropic');
    const outcome = await runAgent({
      model: resolved.model,
      tools: memoryRepositoryTools({ 'a.md': 'A' }),
      instructions: buildAgentInstructions({ prompt: 'Keep reading.' }),
      limits: limits({ maxTotalTokens: 1000 }),
    });
    assert.equal(outcome.stoppedBy, 'max_tokens');
    assert.deepEqual(outcome.usage, {
      inputTokens: 800,
      outputTokens: 200,
      steps: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: null,
    });
    assert.equal(server.requests.length - first, 2);
  });

  test('wall time: the model call in flight at the bound is aborted, and the run says wall_time', async () => {
    const first = freshScript();
    // An answer that would come a minute later: the bound (a fraction of a second) comes first.
    server.enqueue(reply.text('too late', { delayMs: 60_000 }));
    const resolved = model('openai');
    const outcome = await runAgent({
      model: resolved.model,
      modelName: resolved.name,
      tools: memoryRepositoryTools({ 'a.md': 'A' }),
      instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
      limits: limits({ wallTimeMs: 200 }),
    });
    assert.equal(outcome.stoppedBy, 'wall_time');
    assert.equal(outcome.usage.steps, 0);
    assert.equal(outcome.finalText, undefined);
    const cut = await server.waitForAbort(first);
    assert.notEqual(cut.abortedAt, null, 'the server saw the connection closed');
  });
});

describe('a stuck model', () => {
  test('the same failing call three times in a row stops the run', async () => {
    const first = freshScript();
    server.setFallback(reply.toolCall('read_file', { path: 'missing.md' }));
    const events: AgentStepEvent[] = [];
    const resolved = model('anthropic');
    const outcome = await runAgent({
      model: resolved.model,
      tools: memoryRepositoryTools({}),
      instructions: buildAgentInstructions({ prompt: 'Read missing.md.' }),
      limits: limits(),
      onStep: (e) => void events.push(e),
    });
    assert.equal(outcome.stoppedBy, 'stuck');
    assert.equal(outcome.usage.steps, 3);
    assert.equal(server.requests.length - first, 3);
    // The model was told each time what went wrong.
    assert.ok(server.requests.at(-1)!.latestToolResults[0]!.output.includes('no file at missing.md'));
    assert.equal(server.requests.at(-1)!.latestToolResults[0]!.isError, true);
    assert.deepEqual(events[0]!.toolCalls[0], {
      toolCallId: events[0]!.toolCalls[0]!.toolCallId,
      toolName: 'read_file',
      path: 'missing.md',
      ok: false,
      error: 'read_file: no file at missing.md',
    });
  });

  test('failing calls that differ are not "stuck"; argument order does not matter', async () => {
    freshScript();
    server.enqueue(
      reply.toolCall('read_file', { path: 'one.md' }),
      reply.toolCall('read_file', { path: 'two.md' }),
      reply.toolCall('edit_file', { path: 'x.md', old_text: 'a', new_text: 'b' }),
      reply.toolCall('edit_file', { new_text: 'b', old_text: 'a', path: 'x.md' }),
      reply.toolCall('edit_file', { path: 'x.md', new_text: 'b', old_text: 'a' }),
    );
    const resolved = model('openai');
    const outcome = await runAgent({
      model: resolved.model,
      tools: memoryRepositoryTools({}),
      instructions: buildAgentInstructions({ prompt: 'Try things.' }),
      limits: limits(),
    });
    assert.equal(outcome.stoppedBy, 'stuck');
    assert.equal(outcome.usage.steps, 5);
  });

  test('a tool that returns its failure instead of throwing is recognised with isFailedToolOutput', async () => {
    freshScript();
    server.setFallback(reply.toolCall('read_file', { path: 'a.md' }));
    const resolved = model('openai');
    const outcome = await runAgent({
      model: resolved.model,
      tools: memoryRepositoryTools({ 'a.md': 'ERROR: refused' }),
      instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
      limits: limits({ maxSteps: 10 }),
      isFailedToolOutput: (_name, output) => typeof output === 'string' && output.startsWith('ERROR:'),
    });
    assert.equal(outcome.stoppedBy, 'stuck');
    assert.equal(outcome.usage.steps, 3);
  });
});

describe('cancel', () => {
  for (const streaming of [false, true]) {
    test(`aborting mid-request closes the model connection (${streaming ? 'streaming' : 'JSON'})`, async () => {
      const first = freshScript();
      server.enqueue(reply.toolCall('read_file', { path: 'a.md' }), reply.hang());
      const controller = new AbortController();
      const resolved = model('anthropic');
      const running = runAgent({
        model: resolved.model,
        tools: memoryRepositoryTools({ 'a.md': 'A' }),
        instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
        limits: limits(),
        signal: controller.signal,
        streaming,
      });
      await server.waitForRequests(first + 2);
      controller.abort();
      const outcome = await running;
      assert.equal(outcome.stoppedBy, 'cancelled');
      assert.equal(outcome.usage.steps, 1);
      const hung = await server.waitForAbort(first + 1);
      assert.notEqual(hung.abortedAt, null, 'the server saw the connection closed');
    });
  }
});

for (const streaming of [false, true]) {
  test(`a model failure mid-run throws model_error with the usage spent so far (${streaming ? 'streaming' : 'JSON'})`, async () => {
    freshScript();
    server.enqueue(
      reply.toolCall('read_file', { path: 'a.md' }, { usage: { inputTokens: 50, outputTokens: 5 } }),
      reply.error(400, { message: `context too long for ${KEY}` }),
    );
    const resolved = model('openai');
    await assert.rejects(
      runAgent({
        model: resolved.model,
        modelName: resolved.name,
        tools: memoryRepositoryTools({ 'a.md': 'A' }),
        instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
        limits: limits(),
        streaming,
      }),
      (error: unknown) => {
        assert.ok(ModelFailure.isInstance(error));
        assert.equal(error.code, 'model_error');
        assert.match(error.message, /^openai:gpt-4\.1 answered HTTP 400: context too long/);
        assert.ok(!error.message.includes(KEY));
        assert.deepEqual(error.usage, {
          inputTokens: 50,
          outputTokens: 5,
          steps: 1,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: null,
        });
        return true;
      },
    );
  });
}

describe('a model call that keeps the run waiting (the model timeout)', () => {
  // The run's wall time stays at its 15-minute default: only the model timeout can end the wait.
  test('a call with no answer is cut and tried again; the run goes on and finishes', {
    timeout: 30_000,
  }, async () => {
    const first = freshScript();
    server.enqueue(
      reply.toolCall('read_file', { path: 'a.md' }),
      reply.hang(),
      reply.toolCall('finish', { title: 'Read a.md', summary: 'Nothing to change.' }),
    );
    const resolved = model('anthropic', { timeoutMs: 1000 });
    const outcome = await runAgent({
      model: resolved.model,
      modelName: resolved.name,
      tools: memoryRepositoryTools({ 'a.md': 'A' }),
      instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
      limits: limits(),
    });
    assert.equal(outcome.stoppedBy, 'finish');
    assert.equal(outcome.usage.steps, 2);
    assert.equal(server.requests.length - first, 3);
    const hung = await server.waitForAbort(first + 1);
    assert.notEqual(hung.abortedAt, null, 'the hung call was closed');
    assert.deepEqual(server.requests[first + 2]!.body.messages, server.requests[first + 1]!.body.messages);
  });

  test('a streamed answer that stalls midway fails the run with a retryable model_error', {
    timeout: 30_000,
  }, async () => {
    const first = freshScript();
    server.enqueue(
      reply.toolCall('read_file', { path: 'a.md' }, { usage: { inputTokens: 40, outputTokens: 4 } }),
      reply.stall([{ name: 'read_file', input: { path: 'a-page-with-a-long-name.md' } }]),
    );
    const resolved = model('openai', { timeoutMs: 1000 });
    await assert.rejects(
      runAgent({
        model: resolved.model,
        modelName: resolved.name,
        tools: memoryRepositoryTools({ 'a.md': 'A' }),
        instructions: buildAgentInstructions({ prompt: 'Read a.md.' }),
        limits: limits(),
        streaming: true,
      }),
      (error: unknown) => {
        assert.ok(ModelFailure.isInstance(error), String(error));
        assert.equal(error.code, 'model_error');
        assert.equal(error.retryable, true);
        assert.match(
          error.message,
          /^openai:gpt-4\.1 failed: the streamed answer stopped: nothing more came/,
        );
        // The stalled call counts as a step: it was made, and it ended.
        assert.deepEqual(error.usage, {
          inputTokens: 40,
          outputTokens: 4,
          steps: 2,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: null,
        });
        return true;
      },
    );
    await server.waitForAbort(first + 1);
    assert.equal(server.requests.length - first, 2);
  });
});

test('AGENTS.md and the job history reach the model before the new prompt', async () => {
  const first = freshScript();
  server.enqueue(reply.toolCall('finish', { title: 'Done', summary: 'Nothing else.' }));
  const resolved = model('anthropic');
  await runAgent({
    model: resolved.model,
    tools: memoryRepositoryTools({}),
    instructions: buildAgentInstructions({
      prompt: 'Now also fix the title.',
      repositoryInstructions: {
        path: '.docwright/AGENTS.md',
        content: 'Use British spelling. Never touch docs/legal/.',
      },
      history: [
        { prompt: 'Fix the typo in intro.md.', summary: 'intro.md: teh → the.' },
        { prompt: 'And in setup.md.', summary: null, stoppedBy: 'max_steps' },
      ],
    }),
    limits: limits(),
  });
  const request = server.requests[first]!;
  assert.ok(request.system.startsWith(SYSTEM_PROMPT));
  assert.match(
    request.system,
    /from \.docwright\/AGENTS\.md\)[\s\S]*Use British spelling\. Never touch docs\/legal\//,
  );
  assert.deepEqual(request.userTexts.slice(0, 2), ['Fix the typo in intro.md.', 'And in setup.md.']);
  assert.match(request.userTexts[2]!, /^Follow-up request\.[\s\S]*Now also fix the title\.$/);
  assert.equal(request.assistantTurns, 2);
  const assistantTexts = (request.body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === 'assistant')
    .map((m) => JSON.stringify(m.content));
  assert.match(assistantTexts[0]!, /intro\.md: teh → the\./);
  assert.match(assistantTexts[1]!, /stopped because of max_steps/);
});

test('project settings override the server defaults of the bounds', () => {
  assert.deepEqual(resolveAgentLimits({}), {
    maxSteps: 40,
    maxTotalTokens: 1_000_000,
    wallTimeMs: 900_000,
    stuckRepeats: 3,
  });
  assert.deepEqual(resolveAgentLimits({ maxSteps: 12, wallTimeSeconds: 60 }), {
    maxSteps: 12,
    maxTotalTokens: 1_000_000,
    wallTimeMs: 60_000,
    stuckRepeats: 3,
  });
  assert.equal(
    resolveAgentLimits({}, { ...DEFAULT_AGENT_LIMITS, maxTotalTokens: 5000 }).maxTotalTokens,
    5000,
  );
});

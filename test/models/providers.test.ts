// Each provider package, JSON and streaming, with a tool call and usage, against the scripted
// server: proves the models module builds working models and the stand-in speaks both protocols.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateText, isStepCount, streamText } from 'ai';
import { resolveModel } from '../../src/models/resolve.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';
import { MODEL_IDS, modelFor, PROVIDERS, readFileTool, TEST_KEY } from './helpers.ts';

let server: ScriptedLlmServer;
before(async () => {
  server = await startScriptedLlmServer({ apiKey: TEST_KEY });
});
after(() => server.close());

const files = { 'docs/intro.md': '# Intro\n\nHello.\n' };

for (const provider of PROVIDERS) {
  for (const mode of ['json', 'stream'] as const) {
    test(`${provider} (${mode}): a tool call, its result sent back, the final text and usage`, async () => {
      const first = server.requests.length;
      server.enqueue(
        reply.toolCall(
          'read_file',
          { path: 'docs/intro.md' },
          { usage: { inputTokens: 120, outputTokens: 15 } },
        ),
        (request) =>
          reply.text(`The file says: ${request.latestToolResults.map((r) => r.output).join('')}`, {
            usage: { inputTokens: 160, outputTokens: 9 },
          }),
      );
      const { model, name } = modelFor(server, provider);
      assert.equal(name, `${provider}:${MODEL_IDS[provider]}`);
      const options = {
        model,
        instructions: 'You edit documentation.',
        prompt: 'What does the intro say?',
        tools: { read_file: readFileTool(files) },
        stopWhen: isStepCount(5),
        maxRetries: 0,
      };
      let text: string;
      let usage: { inputTokens: number | undefined; outputTokens: number | undefined };
      let steps: number;
      if (mode === 'json') {
        const result = await generateText(options);
        text = result.text;
        usage = result.totalUsage;
        steps = result.steps.length;
      } else {
        const errors: unknown[] = [];
        const result = streamText({ ...options, onError: ({ error }) => void errors.push(error) });
        text = await result.text;
        usage = await result.totalUsage;
        steps = (await result.steps).length;
        assert.deepEqual(errors, []);
      }
      assert.equal(text, 'The file says: # Intro\n\nHello.\n');
      assert.equal(steps, 2);
      assert.equal(usage.inputTokens, 280);
      assert.equal(usage.outputTokens, 24);

      const seen = server.requests.slice(first);
      assert.equal(seen.length, 2);
      for (const request of seen) {
        assert.equal(request.protocol, provider === 'anthropic' ? 'anthropic' : 'openai');
        assert.equal(request.model, MODEL_IDS[provider]);
        assert.equal(request.stream, mode === 'stream');
        assert.deepEqual(request.apiKey, {
          present: true,
          header: provider === 'anthropic' ? 'x-api-key' : 'authorization',
          matches: true,
        });
        assert.ok(!JSON.stringify(request.headers).includes(TEST_KEY), 'recorded headers hold no key');
        assert.equal(request.system, 'You edit documentation.');
        assert.deepEqual(request.userTexts, ['What does the intro say?']);
        assert.deepEqual(request.toolNames, ['read_file']);
      }
      assert.deepEqual(
        seen[1]!.latestToolResults.map((r) => [r.toolName, r.output]),
        [['read_file', '# Intro\n\nHello.\n']],
      );
      if (mode === 'stream' && provider !== 'anthropic') {
        // Usage in OpenAI-style streams exists only when asked for; the models module asks.
        assert.deepEqual(seen[0]!.body.stream_options, { include_usage: true });
      }
    });
  }
}

describe('openai-compatible servers without a key (Ollama, LM Studio)', () => {
  test('no Authorization header is sent', async () => {
    const open = await startScriptedLlmServer();
    try {
      open.enqueue(reply.text('hello'));
      const { model } = resolveModel({
        projectModel: 'openai-compatible:qwen2.5-coder:7b',
        defaultModel: null,
        serverCredentials: { 'openai-compatible': { baseURL: open.baseURL } },
      });
      const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
      assert.equal(result.text, 'hello');
      assert.equal(open.requests[0]!.apiKey.present, false);
      assert.equal(open.requests[0]!.headers.authorization, undefined);
      // Only the first colon separates provider and model: the tag stays in the model id.
      assert.equal(open.requests[0]!.model, 'qwen2.5-coder:7b');
    } finally {
      await open.close();
    }
  });
});

test('a wrong key is refused by the stand-in with 401, as a provider would', async () => {
  const { model } = resolveModel({
    projectModel: 'anthropic:claude-sonnet-4-5',
    defaultModel: null,
    serverCredentials: { anthropic: { apiKey: 'sk-ant-wrong-key-000000', baseURL: server.baseURL } },
  });
  const first = server.requests.length;
  await assert.rejects(generateText({ model, prompt: 'hi', maxRetries: 0 }), (error: Error) => {
    assert.equal((error as { code?: string }).code, 'model_error');
    assert.match(error.message, /HTTP 401/);
    assert.ok(!error.message.includes('sk-ant-wrong-key-000000'));
    return true;
  });
  assert.equal(server.requests.length - first, 1);
  assert.equal(server.requests[first]!.apiKey.matches, false);
});

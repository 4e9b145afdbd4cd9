// Choosing the model and its credentials, and the model_not_configured failures that name the
// variables to set.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText } from 'ai';
import {
  credentialsFromEnvironment,
  modelEnvironmentVariables,
  providerVariableNames,
} from '../../src/models/environment.ts';
import { ModelFailure } from '../../src/models/errors.ts';
import { chosenModel, parseModelSpec } from '../../src/models/model-spec.ts';
import { type ModelSelection, resolveModel } from '../../src/models/resolve.ts';
import { reply, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

function notConfigured(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(ModelFailure.isInstance(error), String(error));
    assert.equal(error.code, 'model_not_configured');
    assert.match(error.message, pattern);
    return true;
  };
}

const base: ModelSelection = { projectModel: null, defaultModel: null, serverCredentials: {} };

test("the chosen model: the project's own, else the server default, else none", () => {
  assert.equal(chosenModel('openai:gpt-4.1', 'anthropic:claude-sonnet-4-5'), 'openai:gpt-4.1');
  assert.equal(chosenModel(null, 'anthropic:claude-sonnet-4-5'), 'anthropic:claude-sonnet-4-5');
  assert.equal(chosenModel('  ', ' anthropic:claude-sonnet-4-5 '), 'anthropic:claude-sonnet-4-5');
  assert.equal(chosenModel(null, null), null);
});

test('no model anywhere: model_not_configured naming DOCWRIGHT_MODEL', () => {
  assert.throws(() => resolveModel(base), notConfigured(/DOCWRIGHT_MODEL/));
});

test('a provider without its key names the variable to set', () => {
  assert.throws(
    () => resolveModel({ ...base, defaultModel: 'anthropic:claude-sonnet-4-5' }),
    notConfigured(/ANTHROPIC_API_KEY/),
  );
  assert.throws(
    () => resolveModel({ ...base, projectModel: 'openai:gpt-4.1' }),
    notConfigured(/OPENAI_API_KEY/),
  );
  assert.throws(
    () => resolveModel({ ...base, projectModel: 'openai-compatible:llama3.1' }),
    notConfigured(/OPENAI_COMPATIBLE_BASE_URL/),
  );
});

test('a key for another provider does not count', () => {
  assert.throws(
    () =>
      resolveModel({
        ...base,
        defaultModel: 'openai:gpt-4.1',
        serverCredentials: { anthropic: { apiKey: 'sk-ant-something-long' } },
      }),
    notConfigured(/OPENAI_API_KEY/),
  );
});

test('unknown provider and malformed model names', () => {
  assert.throws(
    () => parseModelSpec('gemini:pro'),
    notConfigured(/Unknown model provider "gemini".*anthropic, openai, openai-compatible/),
  );
  assert.throws(() => parseModelSpec('gpt-4.1'), notConfigured(/provider:model/));
  assert.throws(() => parseModelSpec('openai:'), notConfigured(/provider:model/));
  assert.deepEqual(parseModelSpec('openai-compatible:qwen2.5-coder:7b'), {
    provider: 'openai-compatible',
    modelId: 'qwen2.5-coder:7b',
  });
});

test('a base URL that is not http(s) is refused without being echoed', () => {
  assert.throws(
    () =>
      resolveModel({
        ...base,
        defaultModel: 'openai-compatible:llama3.1',
        serverCredentials: { 'openai-compatible': { baseURL: 'ftp://user:hunter2@example.com' } },
      }),
    (error: Error) => {
      notConfigured(/OPENAI_COMPATIBLE_BASE_URL must be an http\(s\) URL/)(error);
      assert.ok(!error.message.includes('hunter2'));
      return true;
    },
  );
});

test('the project model overrides the default, and the project key the server key', async () => {
  const server = await startScriptedLlmServer({ apiKey: 'sk-project-key-123456' });
  try {
    server.enqueue(reply.text('from the project key'), reply.text('from the server key'));
    const serverCredentials = {
      openai: { apiKey: 'sk-server-key-654321', baseURL: server.baseURL },
      anthropic: { apiKey: 'sk-ant-server-key-1234', baseURL: server.baseURL },
    };
    const project = resolveModel({
      projectModel: 'openai:gpt-4.1-mini',
      defaultModel: 'anthropic:claude-sonnet-4-5',
      serverCredentials,
      projectApiKey: 'sk-project-key-123456',
    });
    assert.equal(project.name, 'openai:gpt-4.1-mini');
    assert.equal(
      (await generateText({ model: project.model, prompt: 'hi', maxRetries: 0 })).text,
      'from the project key',
    );
    assert.equal(server.requests[0]!.model, 'gpt-4.1-mini');
    assert.equal(server.requests[0]!.apiKey.matches, true);

    const fallback = resolveModel({
      projectModel: null,
      defaultModel: 'anthropic:claude-sonnet-4-5',
      serverCredentials,
    });
    assert.equal(fallback.name, 'anthropic:claude-sonnet-4-5');
    // The stand-in expects the project key, so the server key is refused: proof of which was sent.
    await assert.rejects(generateText({ model: fallback.model, prompt: 'hi', maxRetries: 0 }), /HTTP 401/);
    assert.equal(server.requests[1]!.protocol, 'anthropic');
    assert.equal(server.requests[1]!.apiKey.matches, false);
  } finally {
    await server.close();
  }
});

test('variable names per provider, and reading them from an environment the caller passes', () => {
  assert.deepEqual(providerVariableNames('anthropic'), ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
  assert.deepEqual(providerVariableNames('openai'), ['OPENAI_API_KEY', 'OPENAI_BASE_URL']);
  assert.deepEqual(providerVariableNames('openai-compatible'), [
    'OPENAI_COMPATIBLE_BASE_URL',
    'OPENAI_COMPATIBLE_API_KEY',
  ]);
  assert.deepEqual(Object.keys(modelEnvironmentVariables()).sort(), [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'OPENAI_COMPATIBLE_API_KEY',
    'OPENAI_COMPATIBLE_BASE_URL',
  ]);
  const credentials = credentialsFromEnvironment({
    ANTHROPIC_API_KEY: ' sk-ant-x ',
    OPENAI_API_KEY: '',
    OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1',
  });
  assert.deepEqual(credentials, {
    anthropic: { apiKey: 'sk-ant-x', baseURL: null },
    openai: { apiKey: null, baseURL: null },
    'openai-compatible': { apiKey: null, baseURL: 'http://localhost:11434/v1' },
  });
});

test('docs/models.md names every variable', async () => {
  const { readFile } = await import('node:fs/promises');
  const doc = await readFile(new URL('../../docs/models.md', import.meta.url), 'utf8');
  for (const name of [...Object.keys(modelEnvironmentVariables()), 'DOCWRIGHT_MODEL']) {
    assert.ok(doc.includes(name), `docs/models.md does not mention ${name}`);
  }
});

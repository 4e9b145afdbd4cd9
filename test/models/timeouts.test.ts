// The bound on how long one model call may wait (DOCWRIGHT_MODEL_TIMEOUT_SECONDS), through the
// real provider packages against the scripted server: a provider that sends nothing, or stops
// halfway through its answer, has the call cut (the connection closed) and tried again like a 503;
// when every attempt waits too long the call fails with a retryable model_error; a stream that
// stalls after its answer began reaches the caller as that same kind of error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateText, streamText } from 'ai';
import { modelFailureFrom } from '../../src/models/classify.ts';
import { ModelFailure } from '../../src/models/errors.ts';
import type { RetryEvent } from '../../src/models/retry.ts';
import { ModelTimeoutError } from '../../src/models/timeout.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';
import { FAST_RETRY, modelFor, PROVIDERS, TEST_KEY } from './helpers.ts';

// Short, so the tests do not wait long, yet well above what a busy machine takes to answer from
// the local stand-in; what is checked is which requests were cut and retried, never how long
// anything took.
const TIMEOUT_MS = 1000;

let server: ScriptedLlmServer;
before(async () => {
  server = await startScriptedLlmServer({ apiKey: TEST_KEY });
});
after(() => server.close());

for (const provider of PROVIDERS) {
  test(`${provider}: no answer at all: the call is cut and tried again`, { timeout: 20_000 }, async () => {
    const first = server.requests.length;
    server.enqueue(reply.hang(), reply.text('second time lucky'));
    const retries: RetryEvent[] = [];
    const { model } = modelFor(server, provider, {
      retry: FAST_RETRY,
      timeoutMs: TIMEOUT_MS,
      onRetry: (e) => retries.push(e),
    });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(result.text, 'second time lucky');
    assert.equal(server.requests.length - first, 2);
    const cut = await server.waitForAbort(first);
    assert.ok(cut.abortedAt !== null, 'the hung request was closed');
    assert.equal(retries.length, 1);
    assert.equal(retries[0]!.statusCode, null);
    assert.match(retries[0]!.message, /no answer came within 1 s/);
  });

  test(`${provider}: an answer that stops halfway is cut and tried again`, { timeout: 20_000 }, async () => {
    const first = server.requests.length;
    server.enqueue(reply.stall(), reply.text('whole this time'));
    const { model } = modelFor(server, provider, { retry: FAST_RETRY, timeoutMs: TIMEOUT_MS });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(result.text, 'whole this time');
    assert.equal(server.requests.length - first, 2);
    await server.waitForAbort(first);
  });

  test(`${provider}: a stream that never starts is cut and tried again`, { timeout: 20_000 }, async () => {
    const first = server.requests.length;
    server.enqueue(reply.hang(), reply.text('streamed at last'));
    const { model } = modelFor(server, provider, { retry: FAST_RETRY, timeoutMs: TIMEOUT_MS });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(await result.text, 'streamed at last');
    assert.equal(server.requests.length - first, 2);
    assert.equal(server.requests[first]!.stream, true);
    await server.waitForAbort(first);
  });

  test(`${provider}: a stream that stalls midway fails as a retryable model_error`, {
    timeout: 20_000,
  }, async () => {
    const first = server.requests.length;
    server.enqueue(reply.stall([{ name: 'read_file', input: { path: 'docs/a-rather-long-name.md' } }]));
    const { model, name } = modelFor(server, provider, { retry: FAST_RETRY, timeoutMs: TIMEOUT_MS });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();
    assert.equal(errors.length, 1, 'the stall reached the caller');
    assert.ok(ModelTimeoutError.isInstance(errors[0]), String(errors[0]));
    const failure = modelFailureFrom(errors[0], { modelName: name });
    assert.equal(failure?.code, 'model_error');
    assert.equal(failure?.retryable, true);
    assert.match(failure?.message ?? '', /failed: the streamed answer stopped: nothing more came for 1 s/);
    await server.waitForAbort(first);
    assert.equal(server.requests.length - first, 1, 'a stream that began is not sent again');
  });
}

test('every attempt waits too long: model_error after the retries, marked retryable', {
  timeout: 20_000,
}, async () => {
  const first = server.requests.length;
  server.enqueue(reply.hang(), reply.stall(), reply.hang());
  const { model } = modelFor(server, 'openai', {
    retry: { ...FAST_RETRY, attempts: 3 },
    timeoutMs: TIMEOUT_MS,
  });
  await assert.rejects(generateText({ model, prompt: 'hi', maxRetries: 0 }), (error: unknown) => {
    assert.ok(ModelFailure.isInstance(error), String(error));
    assert.equal(error.code, 'model_error');
    assert.equal(error.retryable, true);
    assert.equal(error.statusCode, null);
    assert.match(error.message, /^openai:gpt-4\.1 failed: no answer came within 1 s \(after 3 attempts\)$/);
    return true;
  });
  assert.equal(server.requests.length - first, 3);
  for (let i = 0; i < 3; i++) await server.waitForAbort(first + i);
});

test('a cancel while waiting is a cancel, not a timeout', { timeout: 20_000 }, async () => {
  const first = server.requests.length;
  server.enqueue(reply.hang());
  const retries: RetryEvent[] = [];
  // A bound far beyond the test: only the cancel can end the call.
  const { model } = modelFor(server, 'anthropic', {
    retry: FAST_RETRY,
    timeoutMs: 600_000,
    onRetry: (e) => retries.push(e),
  });
  const controller = new AbortController();
  const pending = generateText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal });
  await server.waitForRequests(first + 1);
  controller.abort();
  await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
  await server.waitForAbort(first);
  assert.equal(server.requests.length - first, 1);
  assert.deepEqual(retries, []);
});

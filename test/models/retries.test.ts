// Retries and failures through the real provider packages: what is retried (5xx, 429, network),
// how long it waits (the provider's retry-after), and what fails at once with model_error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateText, streamText } from 'ai';
import { JOB_FAILURE_CODES } from '../../src/contract/index.ts';
import { ModelFailure } from '../../src/models/errors.ts';
import type { RetryEvent } from '../../src/models/retry.ts';
import { reply, type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';
import { FAST_RETRY, modelFor, PROVIDERS, TEST_KEY } from './helpers.ts';

let server: ScriptedLlmServer;
before(async () => {
  server = await startScriptedLlmServer({ apiKey: TEST_KEY });
});
after(() => server.close());

function expectModelFailure(check: (failure: ModelFailure) => void) {
  return (error: unknown) => {
    assert.ok(ModelFailure.isInstance(error), `expected a ModelFailure, got ${String(error)}`);
    check(error);
    return true;
  };
}

for (const provider of PROVIDERS) {
  test(`${provider}: 500 then success is retried, waiting what retry-after-ms asks`, async () => {
    const first = server.requests.length;
    server.enqueue(
      reply.error(500, { message: 'upstream hiccup', headers: { 'retry-after-ms': '7' } }),
      reply.text('ok'),
    );
    const retries: RetryEvent[] = [];
    const { model } = modelFor(server, provider, { retry: FAST_RETRY, onRetry: (e) => retries.push(e) });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(result.text, 'ok');
    assert.equal(server.requests.length - first, 2, 'the server saw the second request');
    assert.equal(retries.length, 1);
    // The backoff base is 1 ms: a 7 ms wait can only have come from the header.
    assert.deepEqual(
      { ...retries[0]!, message: undefined },
      { attempt: 1, delayMs: 7, statusCode: 500, fromRetryAfter: true, message: undefined },
    );
    assert.match(retries[0]!.message, /upstream hiccup/);
  });

  test(`${provider}: 429 with retry-after (seconds) is retried, the wait capped by maxDelayMs`, async () => {
    const first = server.requests.length;
    server.enqueue(reply.error(429, { message: 'slow down', retryAfter: '30' }), reply.text('ok after 429'));
    const retries: RetryEvent[] = [];
    const { model } = modelFor(server, provider, {
      retry: { baseDelayMs: 1, maxDelayMs: 12 },
      onRetry: (e) => retries.push(e),
    });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(await result.text, 'ok after 429');
    assert.equal(server.requests.length - first, 2);
    assert.equal(retries[0]!.statusCode, 429);
    assert.equal(retries[0]!.fromRetryAfter, true);
    assert.equal(retries[0]!.delayMs, 12, '30 s asked, capped at maxDelayMs');
  });

  test(`${provider}: 400 fails at once with model_error, the provider's message, and no key`, async () => {
    const first = server.requests.length;
    server.enqueue(
      reply.error(400, {
        message: `prompt is too long (request made with key ${TEST_KEY}, Bearer ${TEST_KEY})`,
      }),
    );
    const { model } = modelFor(server, provider);
    await assert.rejects(
      generateText({ model, prompt: 'hi', maxRetries: 0 }),
      expectModelFailure((failure) => {
        assert.equal(failure.code, 'model_error');
        assert.equal(failure.statusCode, 400);
        assert.equal(failure.retryable, false);
        assert.match(failure.message, /answered HTTP 400: prompt is too long/);
        assert.ok(failure.message.startsWith(`${provider}:`), failure.message);
        assert.ok(!failure.message.includes(TEST_KEY), failure.message);
        assert.ok(!failure.message.includes('0123456789abcdef'), failure.message);
      }),
    );
    assert.equal(server.requests.length - first, 1, 'not retried');
  });

  test(`${provider}: 401 is not retried`, async () => {
    const first = server.requests.length;
    server.enqueue(reply.error(401, { message: 'invalid x-api-key' }));
    const retries: RetryEvent[] = [];
    const { model } = modelFor(server, provider, { retry: FAST_RETRY, onRetry: (e) => retries.push(e) });
    // A stream reports its error through onError; its promises only say that nothing came.
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await assert.rejects(async () => {
      await result.text;
    });
    assert.equal(errors.length, 1);
    expectModelFailure((failure) => {
      assert.equal(failure.statusCode, 401);
      assert.equal(failure.retryable, false);
      assert.match(failure.message, /invalid x-api-key/);
    })(errors[0]);
    assert.equal(server.requests.length - first, 1);
    assert.deepEqual(retries, []);
  });
}

test('a dropped connection (network failure) is retried', async () => {
  const first = server.requests.length;
  server.enqueue(reply.disconnect(), reply.text('back again'));
  const retries: RetryEvent[] = [];
  const { model } = modelFor(server, 'openai', { retry: FAST_RETRY, onRetry: (e) => retries.push(e) });
  const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
  assert.equal(result.text, 'back again');
  assert.equal(server.requests.length - first, 2);
  assert.equal(retries[0]!.statusCode, null);
  assert.equal(retries[0]!.fromRetryAfter, false);
});

test('retries run out: model_error saying how many attempts, marked retryable', async () => {
  const first = server.requests.length;
  server.enqueue(...Array.from({ length: 3 }, () => reply.error(503, { message: 'overloaded' })));
  const { model } = modelFor(server, 'anthropic', { retry: { ...FAST_RETRY, attempts: 3 } });
  await assert.rejects(
    generateText({ model, prompt: 'hi', maxRetries: 0 }),
    expectModelFailure((failure) => {
      assert.equal(failure.code, 'model_error');
      assert.equal(failure.retryable, true);
      assert.equal(failure.statusCode, 503);
      assert.match(failure.message, /overloaded \(after 3 attempts\)/);
    }),
  );
  assert.equal(server.requests.length - first, 3);
});

test('a 429 for exhausted quota is not retried (waiting cannot fix it)', async () => {
  const first = server.requests.length;
  server.enqueue(
    reply.error(429, {
      body: {
        error: {
          message: 'You exceeded your current quota.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
    }),
  );
  const { model } = modelFor(server, 'openai');
  await assert.rejects(
    generateText({ model, prompt: 'hi', maxRetries: 0 }),
    expectModelFailure((failure) => {
      assert.equal(failure.statusCode, 429);
      assert.equal(failure.retryable, false);
      assert.match(failure.message, /exceeded your current quota/);
    }),
  );
  assert.equal(server.requests.length - first, 1);
});

test('a cancel during the wait between retries stops without another request', async () => {
  const first = server.requests.length;
  server.enqueue(reply.error(503, { message: 'busy', headers: { 'retry-after': '60' } }));
  const { model } = modelFor(server, 'openai', { retry: { baseDelayMs: 1, maxDelayMs: 60_000 } });
  const controller = new AbortController();
  const pending = generateText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal });
  await server.waitForRequests(first + 1);
  controller.abort();
  await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
  assert.equal(server.requests.length - first, 1, 'no retry after the cancel');
});

test('the failure codes are job failure codes', () => {
  for (const code of ['model_error', 'model_not_configured'] as const) {
    const failure = new ModelFailure(code, 'x');
    assert.ok(failure.code in JOB_FAILURE_CODES);
  }
});

// The error handler itself must not fail: whatever it is handed, the answer keeps the error body's
// shape and quotes no internals, instead of Fastify's fallback ("FST_ERR_FAILED_ERROR_SERIALIZATION
// ... Maximum call stack size exceeded").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { App } from '../../src/http/context.ts';
import { installErrorHandling } from '../../src/http/error-handler.ts';

test('an error that cannot be described, or carries a value too deep to print, still answers the error body', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  installErrorHandling(app as unknown as App);
  // A fault while the handler reads the error.
  app.get('/unreadable', async () => {
    const error = new Error('boom');
    Object.defineProperty(error, 'validation', {
      get() {
        throw new RangeError('Maximum call stack size exceeded');
      },
    });
    throw error;
  });
  // A validation failure whose offending value is nested far deeper than JSON.stringify can go.
  app.post('/deep', {
    schema: { body: { type: 'object', properties: { prompt: { type: 'string' } } } },
    preValidation: async (request) => {
      let deep: unknown = 'x';
      for (let i = 0; i < 20_000; i++) deep = [deep];
      request.body = { prompt: deep };
    },
    handler: async () => 'unreachable',
  });

  const unreadable = await app.inject({ method: 'GET', url: '/unreadable' });
  assert.equal(unreadable.statusCode, 500);
  assert.equal(unreadable.json().code, 'internal_error');
  assert.doesNotMatch(unreadable.body, /FST_|Maximum call stack|boom/);

  const deep = await app.inject({ method: 'POST', url: '/deep', payload: { prompt: 'x' } });
  assert.equal(deep.statusCode, 400, deep.body);
  assert.equal(deep.json().code, 'invalid_body');
  assert.match(deep.json().error, /"prompt" must be string; got an array/);
});

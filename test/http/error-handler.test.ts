// The error handler itself must not fail: whatever it is handed, the answer keeps the error body's
// shape and quotes no internals, instead of Fastify's fallback ("FST_ERR_FAILED_ERROR_SERIALIZATION
// ... Maximum call stack size exceeded").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
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

test('a value outside a set of constants is one error that lists the allowed values', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  installErrorHandling(app as unknown as App);
  const Status = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('failed')]);
  app.get(
    '/jobs',
    { schema: { querystring: Type.Object({ status: Type.Optional(Status) }) } },
    async () => 'ok',
  );
  app.post(
    '/jobs',
    { schema: { body: Type.Object({ status: Status, limit: Type.Integer({ minimum: 1 }) }) } },
    async () => 'ok',
  );

  const query = await app.inject({ method: 'GET', url: '/jobs?status=bogus' });
  assert.equal(query.statusCode, 400, query.body);
  assert.equal(query.json().code, 'invalid_parameter');
  assert.equal(
    query.json().error,
    'Query parameter "status" must be one of "queued", "running", "failed"; got "bogus".',
  );
  assert.deepEqual(query.json().details, [
    {
      location: 'query',
      name: 'status',
      message: 'Query parameter "status" must be one of "queued", "running", "failed"; got "bogus".',
    },
  ]);

  // Ajv stops at the first failing keyword by default; either way each field is named once.
  const body = await app.inject({ method: 'POST', url: '/jobs', payload: { status: 'done', limit: 1 } });
  assert.equal(body.statusCode, 400, body.body);
  assert.equal(body.json().details.length, 1);
  assert.match(
    body.json().error,
    /^Field "status" must be one of "queued", "running", "failed"; got "done"\.$/,
  );
});

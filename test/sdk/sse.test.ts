// Unit tests of the event-stream parser (pure logic), against the rules of the WHATWG HTML
// standard, "Interpreting an event stream", and its examples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEventStream, type SseMessage, SseParser } from '../../src/sdk/sse.ts';

function parseAll(chunks: string[]): { messages: SseMessage[]; parser: SseParser } {
  const parser = new SseParser();
  const messages = chunks.flatMap((c) => parser.push(c));
  return { messages, parser };
}

test('fields, comments, the default event type and multi-line data', () => {
  const { messages } = parseAll([
    ': keep-alive\n\nid: 1\nevent: started\ndata: {"a":1}\n\ndata: first\ndata: second\n\n',
  ]);
  assert.deepEqual(messages, [
    { event: 'started', data: '{"a":1}', lastEventId: '1' },
    { event: 'message', data: 'first\nsecond', lastEventId: '1' },
  ]);
});

test('every line ending (CRLF, LF, CR), also split between chunks', () => {
  const text = 'id: 7\r\nevent: a\rdata: x\n\r\nid: 8\rdata: y\r\r';
  const whole = parseAll([text]).messages;
  assert.deepEqual(whole, [
    { event: 'a', data: 'x', lastEventId: '7' },
    { event: 'message', data: 'y', lastEventId: '8' },
  ]);
  // Every way of cutting the text into two chunks gives the same events.
  for (let i = 1; i < text.length; i++) {
    assert.deepEqual(parseAll([text.slice(0, i), text.slice(i)]).messages, whole, `cut at ${i}`);
  }
  // One character at a time too.
  assert.deepEqual(parseAll([...text]).messages, whole);
});

test('the spec example: space after the colon is optional, one leading space is removed', () => {
  const { messages } = parseAll(['data:test\n\ndata: test\n\ndata:  two spaces\n\n']);
  assert.deepEqual(
    messages.map((m) => m.data),
    ['test', 'test', ' two spaces'],
  );
});

test('no data, no event; an unfinished event at the end is discarded; id and retry persist', () => {
  const { messages, parser } = parseAll([
    'retry: 1500\n\nevent: lonely\n\nid: 3\n\nretry: x\n\ndata: cut off',
  ]);
  assert.deepEqual(messages, []);
  assert.equal(parser.lastEventId, '3');
  assert.equal(parser.retryMs, 1500, 'a retry that is not digits is ignored');
});

test('a field without a colon has an empty value; unknown fields are ignored; id with NUL is ignored', () => {
  const { messages } = parseAll(['id: 5\ndata\nfoo: bar\nid: 6\0\n\n']);
  assert.deepEqual(messages, [{ event: 'message', data: '', lastEventId: '5' }]);
});

test('a leading byte order mark is skipped', () => {
  const { messages } = parseAll(['\uFEFFdata: x\n\n']);
  assert.deepEqual(messages, [{ event: 'message', data: 'x', lastEventId: null }]);
});

test('readEventStream decodes UTF-8 split across chunks and stops reading when the caller stops', async () => {
  const bytes = new TextEncoder().encode('data: é€😀\n\ndata: two\n\ndata: three\n\n');
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // One byte per chunk: every multi-byte character is split.
      for (const b of bytes) controller.enqueue(new Uint8Array([b]));
    },
    cancel() {
      cancelled = true;
    },
  });
  const seen: string[] = [];
  for await (const message of readEventStream(body)) {
    seen.push(message.data);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, ['é€😀', 'two']);
  assert.equal(cancelled, true, 'the body is cancelled when the loop breaks');
});

// What Fastify's router and Node's HTTP parser refuse, before any route runs, is answered in the
// error contract too: {error, code, requestId} with a code docs/errors.md lists and its status,
// and never repeating the URL. Sent as raw bytes over a real socket, since Node's parser is what
// answers most of these and inject() bypasses it.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { ERROR_REGISTRY } from '../../src/contract/index.ts';
import type { App } from '../../src/http/context.ts';
import { createTestApp } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends `bytes` and reads until the server closes the connection (bounded by a timeout). */
function exchange(port: number, bytes: string): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(chunks).toString('utf8'))));
    socket.write(bytes);
  });
}

/** The HTTP/1.1 responses in `raw`, framed by their Content-Length. */
function parseAnswers(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `a response head in ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers.get('content-length') ?? 0);
    answers.push({
      status: Number(statusLine!.split(' ')[1]),
      headers,
      body: rest.slice(end + 4, end + 4 + length),
    });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

function assertContract(answer: RawAnswer, status: number, code: string, mustNotContain: string[]) {
  assert.equal(answer.status, status, answer.body);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'requestId'], answer.body);
  assert.equal(body.code, code);
  assert.equal(ERROR_REGISTRY.get(code)?.status, status, `${code} is registered with ${status}`);
  assert.match(String(body.requestId), /^req_[0-9a-f]{32}$/);
  assert.equal(answer.headers.get('x-request-id'), body.requestId);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  // The request id is 32 random hex digits, so it alone may hold a short value such as "abc".
  const told = answer.body.replace(String(body.requestId), '');
  for (const text of mustNotContain) assert.ok(!told.includes(text), `the body repeats ${text}`);
}

await forEachBackend('framework and parser errors', ({ db }) => {
  let app: App;
  let port: number;
  before(async () => {
    app = await createTestApp(db());
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app.close());

  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;

  test('bad percent-encoding in the path: 400 invalid_url', async () => {
    for (const path of ['/v2/agent/%ff%fe/jobs', '/v2/agent/prj_1/job/%ZZ', '/v1/analytics/%E0%A4%A/views']) {
      const [answer, ...more] = await exchange(port, get(path));
      assert.equal(more.length, 0);
      assertContract(answer!, 400, 'invalid_url', [path, path.split('/')[3]!]);
    }
  });

  test('a path parameter over 100 characters: 414 parameter_too_long, without the URL', async () => {
    const long = `prj_${'x'.repeat(200)}`;
    const [answer] = await exchange(port, get(`/v2/agent/${long}/jobs`));
    assertContract(answer!, 414, 'parameter_too_long', [long.slice(0, 50)]);
  });

  test('a request line over 16 KiB: 431 headers_too_large with a body', async () => {
    const query = `q=${'a'.repeat(20_000)}`;
    const [answer] = await exchange(port, get(`/v2/agent/prj_1/jobs?${query}`));
    assertContract(answer!, 431, 'headers_too_large', ['aaaaaaaaaa']);
  });

  test('what is not HTTP: a garbage request line, a malformed or mismatched Content-Length', async () => {
    const garbage = await exchange(port, 'HELLO THERE\r\n\r\n');
    assertContract(garbage[0]!, 400, 'bad_request', ['HELLO']);

    const malformed = await exchange(
      port,
      'POST /v2/agent/prj_1/job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}',
    );
    assertContract(malformed[0]!, 400, 'bad_request', ['abc']);

    // Two Content-Lengths that disagree.
    const twice = await exchange(
      port,
      'POST /v2/agent/prj_1/job HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n{}',
    );
    assertContract(twice[0]!, 400, 'bad_request', []);

    // A Content-Length shorter than the body: the first request is answered (no key: 401), and the
    // rest of the body, read as the next request line, is refused in the same shape.
    const short = await exchange(
      port,
      'POST /v2/agent/prj_1/job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"prompt": "the rest"}\r\n\r\n',
    );
    assert.equal(short.length, 2, JSON.stringify(short));
    assertContract(short[0]!, 401, 'missing_api_key', []);
    assertContract(short[1]!, 400, 'bad_request', ['prompt', 'the rest']);
  });

  test('an unknown route does not repeat its path', async () => {
    const [answer] = await exchange(port, get('/v3/secret-token-in-path'));
    assertContract(answer!, 404, 'route_not_found', ['secret-token-in-path']);
  });
});

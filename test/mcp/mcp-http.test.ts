// The MCP endpoint (/mcp) driven by the SDK's own client over streamable HTTP, on both engines:
// the tools a key's scope allows, what each returns next to the same HTTP API call, refusals of
// unauthenticated and under-scoped callers, and bad arguments answered as tool errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../src/http/context.ts';
import { jobEventHub } from '../../src/modules/jobs/index.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { errorOf, httpClient, listen, READ_TOOLS, resultValue, WRITE_TOOLS } from './mcp-helpers.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

await forEachBackend('MCP over streamable HTTP', ({ db }) => {
  let app: App;
  let baseUrl: string;
  let seeded: Awaited<ReturnType<typeof seedProject>>;
  let other: Awaited<ReturnType<typeof seedProject>>;
  let admin: Client;
  let reader: Client;
  const queued: string[] = [];

  before(async () => {
    app = await createTestApp(db(), { onJobQueued: (id) => queued.push(id) });
    baseUrl = await listen(app);
    seeded = await seedProject(db());
    other = await seedProject(db());
    admin = await httpClient(baseUrl, seeded.adminKey);
    reader = await httpClient(baseUrl, seeded.readKey);
  });
  after(async () => {
    await admin?.close();
    await reader?.close();
    await app?.close();
  });

  const initialize = (headers: Record<string, string>) =>
    fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(INITIALIZE),
    });

  test('an admin key lists every tool, each with object input and output schemas', async () => {
    const { tools } = await admin.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok((tool.description ?? '').length > 40, `${tool.name} is described`);
      // Plain JSON Schema: no TypeBox markers, no $id to collide in a client's validator.
      assert.doesNotMatch(JSON.stringify(tool), /"\$id"|"~kind"|"\$ref"/, tool.name);
    }
    const create = tools.find((t) => t.name === 'create_job')!;
    // The prompt's rules are the contract's (PromptBodySchema), as the HTTP route checks them.
    assert.deepEqual(
      (create.inputSchema.properties as Record<string, { maxLength?: number }>).prompt?.maxLength,
      50_000,
    );
    assert.deepEqual(create.inputSchema.required, ['prompt']);
    assert.equal(create.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === 'get_job')!.annotations?.readOnlyHint, true);
  });

  test('a read key sees only the read tools and is refused a write tool', async () => {
    const { tools } = await reader.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS].sort());
    const before = (await db().query('SELECT id FROM jobs WHERE project_id = $1', [seeded.project.id]))
      .length;
    for (const name of WRITE_TOOLS) {
      const refused = errorOf(await reader.callTool({ name, arguments: { prompt: 'x', jobId: 'job_x' } }));
      assert.equal(refused.code, 'insufficient_scope', name);
      assert.match(
        refused.error,
        new RegExp(`${name} needs a key with scope admin; this key has scope read`),
      );
    }
    const after = (await db().query('SELECT id FROM jobs WHERE project_id = $1', [seeded.project.id])).length;
    assert.equal(after, before, 'no job was created by a read key');
  });

  test('an unauthenticated initialize is refused with 401 and the API error body', async () => {
    const none = await initialize({});
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    const body = (await none.json()) as { code: string; error: string; requestId: string };
    assert.equal(body.code, 'missing_api_key');
    assert.match(body.requestId, /^req_/);
    assert.equal(none.headers.get('x-request-id'), body.requestId);

    const unknown = await initialize(bearer(`dw_${'A'.repeat(38)}`));
    assert.equal(unknown.status, 401);
    assert.match(((await unknown.json()) as { code: string }).code, /^(invalid_api_key|missing_api_key)$/);

    const basic = await initialize({ authorization: 'Basic dXNlcjpwYXNz' });
    assert.equal(basic.status, 401);

    // An ingest key has no tool to call: refused before MCP starts.
    const ingest = await initialize(bearer(seeded.ingestKey));
    assert.equal(ingest.status, 403);
    assert.equal(((await ingest.json()) as { code: string }).code, 'insufficient_scope');

    // The SDK's client sees the refusal as a failed connect.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const anonymous = new Client({ name: 'anonymous', version: '1' });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl))));
  });

  test('an authenticated initialize answers with the server info and no session', async () => {
    const res = await initialize(bearer(seeded.readKey));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('mcp-session-id'), null);
    assert.match(await res.text(), /"serverInfo":\{"name":"docwright"/);
    assert.equal(admin.getServerVersion()?.name, 'docwright');
    assert.match(admin.getInstructions() ?? '', /project of the API key/);
  });

  test('GET and DELETE /mcp answer 405; an empty POST 400; all in the API error shape', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(new URL('/mcp', baseUrl), { method, headers: bearer(seeded.adminKey) });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.equal(((await res.json()) as { code: string }).code, 'mcp_method_not_allowed');
    }
    const empty = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { ...bearer(seeded.adminKey), 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    assert.equal(((await empty.json()) as { code: string }).code, 'invalid_json');
    // What the MCP transport itself refuses comes in the API's shape too, with its words.
    const post = (headers: Record<string, string>, body: string) =>
      fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: { ...bearer(seeded.adminKey), 'content-type': 'application/json', ...headers },
        body,
      });
    const json = { accept: 'application/json, text/event-stream' };
    const refusals: [Response, number, string, RegExp][] = [
      [
        await post({ accept: 'application/json' }, JSON.stringify(INITIALIZE)),
        406,
        'mcp_not_acceptable',
        /accept both/,
      ],
      [await post(json, '{"hello":"world"}'), 400, 'mcp_invalid_request', /JSON-RPC/],
      [await post(json, '[1,2]'), 400, 'mcp_invalid_request', /JSON-RPC/],
      [
        await post(
          { ...json, 'mcp-protocol-version': '1999-01-01' },
          '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        ),
        400,
        'mcp_invalid_request',
        /protocol version/i,
      ],
      [
        await post({ ...json, 'content-type': 'text/plain' }, 'hi'),
        415,
        'unsupported_media_type',
        /Content-Type/,
      ],
    ];
    for (const [res, status, code, words] of refusals) {
      const body = (await res.json()) as { code: string; error: string; requestId: string };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.code, code);
      assert.match(body.error, words);
      assert.match(body.requestId, /^req_/);
    }
    const nul = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: {
        ...bearer(seeded.adminKey),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_job","arguments":{"jobId":"a\\u0000"}}}',
    });
    // Refused with the API's checks for every JSON body, before MCP reads it (tool-arguments.ts
    // refuses it again for servers reached otherwise: mcp-server.test.ts).
    assert.equal(nul.status, 400);
    assert.equal(((await nul.json()) as { code: string }).code, 'nul_character');
  });

  test('job tools call the same services as the HTTP routes and give the same answers', async () => {
    const created = resultValue<{ id: string; status: string }>(
      await admin.callTool({ name: 'create_job', arguments: { prompt: 'Fix the typo in the guide' } }),
    );
    assert.equal(created.status, 'active');
    assert.ok(queued.includes(created.id), 'the worker was woken, as after POST .../job');
    const viaHttp = await app.inject({
      url: `/v2/agent/${seeded.project.id}/job/${created.id}`,
      headers: bearer(seeded.readKey),
    });
    const got = resultValue(await reader.callTool({ name: 'get_job', arguments: { jobId: created.id } }));
    assert.deepEqual(got, viaHttp.json());

    const listed = resultValue<{ jobs: { id: string }[]; nextCursor: string | null }>(
      await reader.callTool({ name: 'list_jobs', arguments: { status: 'active', limit: 1 } }),
    );
    const listedHttp = await app.inject({
      url: `/v2/agent/${seeded.project.id}/jobs?status=active&limit=1`,
      headers: bearer(seeded.readKey),
    });
    assert.deepEqual(listed, listedHttp.json());

    const events = resultValue<{ events: { type: string }[] }>(
      await reader.callTool({ name: 'list_job_events', arguments: { jobId: created.id } }),
    );
    assert.deepEqual(
      events.events.map((e) => e.type),
      ['created'],
    );

    // The diff does not exist yet: the API's 404 code, as a tool error.
    const noDiff = errorOf(await reader.callTool({ name: 'get_job_diff', arguments: { jobId: created.id } }));
    assert.equal(noDiff.code, 'job_diff_not_found');

    // Active: no follow-up, no archive; cancel works once.
    assert.equal(
      errorOf(
        await admin.callTool({ name: 'follow_up_job', arguments: { jobId: created.id, prompt: 'More' } }),
      ).code,
      'job_active',
    );
    assert.equal(
      errorOf(await admin.callTool({ name: 'archive_job', arguments: { jobId: created.id } })).code,
      'job_active',
    );
    const cancelled = resultValue<{ status: string; error: { code: string } }>(
      await admin.callTool({ name: 'cancel_job', arguments: { jobId: created.id } }),
    );
    assert.equal(cancelled.status, 'failed');
    assert.equal(cancelled.error.code, 'cancelled');
    assert.equal(
      errorOf(await admin.callTool({ name: 'cancel_job', arguments: { jobId: created.id } })).code,
      'job_not_active',
    );
    const archived = resultValue<{ status: string; archivedAt: string | null }>(
      await admin.callTool({ name: 'archive_job', arguments: { jobId: created.id } }),
    );
    assert.equal(archived.status, 'archived');
    assert.ok(archived.archivedAt);
    assert.equal(
      errorOf(
        await admin.callTool({ name: 'follow_up_job', arguments: { jobId: created.id, prompt: 'More' } }),
      ).code,
      'job_archived',
    );
  });

  test('concurrent calls with the same JSON-RPC id each get their own answer', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = resultValue<{ id: string }>(
        await admin.callTool({ name: 'create_job', arguments: { prompt: `Parallel ${i}` } }),
      );
      ids.push(job.id);
    }
    const call = (jobId: string) =>
      fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: {
          ...bearer(seeded.readKey),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'get_job', arguments: { jobId } },
        }),
      }).then(
        async (res) => (await res.json()) as { id: number; result: { structuredContent: { id: string } } },
      );
    const asked = Array.from({ length: 40 }, (_, i) => ids[i % ids.length]!);
    const answers = await Promise.all(asked.map(call));
    assert.deepEqual(
      answers.map((a) => a.result.structuredContent.id),
      asked,
    );
    assert.ok(answers.every((a) => a.id === 7));
    for (const id of ids) await admin.callTool({ name: 'cancel_job', arguments: { jobId: id } });
  });

  test('create_job waits at most waitSeconds, and stops waiting when the client leaves', async () => {
    // No worker runs in this app: the job stays active.
    const started = Date.now();
    const waited = await admin.callTool({
      name: 'create_job',
      arguments: { prompt: 'Wait a bit', waitSeconds: 1 },
    });
    const job = resultValue<{ id: string; status: string }>(waited);
    assert.equal(job.status, 'active');
    assert.ok(Date.now() - started >= 900, 'it waited');
    assert.match(JSON.stringify(waited.content), /still active after the wait; call get_job/);

    const hub = jobEventHub(db());
    const leaving = new AbortController();
    const call = fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      signal: leaving.signal,
      headers: {
        ...bearer(seeded.adminKey),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_job', arguments: { prompt: 'Wait long', waitSeconds: 600 } },
      }),
    }).catch(() => 'aborted');
    const waiting = Date.now();
    while (hub.subscriberCount === 0 && Date.now() - waiting < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(hub.subscriberCount, 1, 'the call is waiting on the job');
    leaving.abort();
    assert.equal(await call, 'aborted');
    const stopping = Date.now();
    while (hub.subscriberCount > 0 && Date.now() - stopping < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(hub.subscriberCount, 0, 'the wait ended with the connection');
    for (const row of await db().query<{ id: string }>("SELECT id FROM jobs WHERE status = 'active'")) {
      await admin.callTool({ name: 'cancel_job', arguments: { jobId: row.id } });
    }
  });

  test('create_job honours an idempotency key as the Idempotency-Key header does', async () => {
    const args = { prompt: 'Once only', idempotencyKey: 'mcp-retry-1' };
    const first = resultValue<{ id: string }>(await admin.callTool({ name: 'create_job', arguments: args }));
    const again = await admin.callTool({ name: 'create_job', arguments: args });
    assert.equal(resultValue<{ id: string }>(again).id, first.id);
    assert.match(JSON.stringify(again.content), /Idempotency key seen before/);
    const reused = errorOf(
      await admin.callTool({ name: 'create_job', arguments: { ...args, prompt: 'Something else' } }),
    );
    assert.equal(reused.code, 'idempotency_key_reused');
    await admin.callTool({ name: 'cancel_job', arguments: { jobId: first.id } });
  });

  test('concurrent calls of two projects and two scopes each act for their own key', async () => {
    // Single calls share one server (one-call-transport.ts): each must carry its own caller.
    const mine = resultValue<{ id: string }>(
      await admin.callTool({ name: 'create_job', arguments: { prompt: 'Mine alone' } }),
    );
    const post = async (key: string, name: string) => {
      const res = await fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: {
          ...bearer(key),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, arguments: { jobId: mine.id } },
        }),
      });
      const body = (await res.json()) as { id: number; result: unknown };
      assert.equal(body.id, 7);
      return body.result;
    };
    const kinds = ['own read', 'other project', 'read key cancels'] as const;
    const asked = Array.from({ length: 30 }, (_, i) => kinds[i % kinds.length]!);
    const answers = await Promise.all(
      asked.map((kind) =>
        kind === 'own read'
          ? post(seeded.readKey, 'get_job')
          : kind === 'other project'
            ? post(other.adminKey, 'get_job')
            : post(seeded.readKey, 'cancel_job'),
      ),
    );
    answers.forEach((answer, i) => {
      if (asked[i] === 'own read') assert.equal(resultValue<{ id: string }>(answer).id, mine.id);
      if (asked[i] === 'other project') assert.equal(errorOf(answer).code, 'job_not_found');
      if (asked[i] === 'read key cancels') assert.equal(errorOf(answer).code, 'insufficient_scope');
    });
    await admin.callTool({ name: 'cancel_job', arguments: { jobId: mine.id } });
  });

  test("a key never reaches another project's job", async () => {
    const theirs = resultValue<{ id: string }>(
      await (await httpClient(baseUrl, other.adminKey)).callTool({
        name: 'create_job',
        arguments: { prompt: 'Theirs' },
      }),
    );
    for (const name of ['get_job', 'list_job_events', 'get_job_diff', 'cancel_job']) {
      const refused = errorOf(await admin.callTool({ name, arguments: { jobId: theirs.id } }));
      assert.equal(refused.code, 'job_not_found', name);
    }
  });

  test('bad arguments are tool errors naming the argument; the server goes on', async () => {
    const cases: { name: string; arguments: Record<string, unknown>; code: string; names: string }[] = [
      { name: 'get_job', arguments: {}, code: 'invalid_parameter', names: 'jobId' },
      { name: 'get_job', arguments: { jobId: 42 }, code: 'invalid_parameter', names: 'jobId' },
      { name: 'get_job', arguments: { jobid: 'job_x' }, code: 'invalid_parameter', names: 'jobId' },
      { name: 'get_job', arguments: { jobId: 'job_x', extra: 1 }, code: 'invalid_parameter', names: 'extra' },
      { name: 'list_jobs', arguments: { limit: '5' }, code: 'invalid_parameter', names: 'limit' },
      { name: 'list_jobs', arguments: { limit: 101 }, code: 'invalid_parameter', names: 'limit' },
      { name: 'list_jobs', arguments: { status: 'running' }, code: 'invalid_parameter', names: 'status' },
      {
        name: 'list_jobs',
        arguments: { cursor: 'not-a-cursor' },
        code: 'invalid_parameter',
        names: 'cursor',
      },
      { name: 'create_job', arguments: { prompt: '' }, code: 'invalid_parameter', names: 'prompt' },
      {
        name: 'create_job',
        arguments: { prompt: 'x'.repeat(50_001) },
        code: 'invalid_parameter',
        names: 'prompt',
      },
      {
        name: 'create_job',
        arguments: { prompt: { deep: [[[[1]]]] } },
        code: 'invalid_parameter',
        names: 'prompt',
      },
      {
        name: 'create_job',
        arguments: { prompt: 'x', waitSeconds: 10_000 },
        code: 'invalid_parameter',
        names: 'waitSeconds',
      },
      {
        name: 'create_job',
        arguments: { prompt: 'x', idempotencyKey: 'has space' },
        code: 'invalid_parameter',
        names: 'idempotencyKey',
      },
      {
        name: 'get_page_views',
        arguments: { dateFrom: 'yesterday' },
        code: 'invalid_parameter',
        names: 'dateFrom',
      },
      {
        name: 'get_page_views',
        arguments: { dateFrom: '2026-02-01', dateTo: '2026-01-01' },
        code: 'invalid_date_range',
        names: 'dateTo',
      },
      { name: 'get_page_views', arguments: { limit: 0 }, code: 'invalid_parameter', names: 'limit' },
      {
        name: 'get_traffic_timeseries',
        arguments: { interval: 'week' },
        code: 'invalid_parameter',
        names: 'interval',
      },
      { name: 'get_usage', arguments: { groupBy: 'week' }, code: 'invalid_parameter', names: 'groupBy' },
    ];
    for (const c of cases) {
      const body = errorOf(await admin.callTool({ name: c.name, arguments: c.arguments }));
      const label = `${c.name} ${JSON.stringify(c.arguments).slice(0, 80)}`;
      assert.equal(body.code, c.code, `${label}: ${body.error}`);
      assert.equal(body.details?.[0]?.name, c.names, label);
      assert.equal(body.details?.[0]?.location, 'arguments', label);
      assert.match(body.error, new RegExp(`"${c.names}"`), label);
    }
    // An unknown tool is a protocol error (MCP's rule), not a crash.
    await assert.rejects(admin.callTool({ name: 'drop_tables', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Unknown tool "drop_tables"/);
      return true;
    });
    // Still serving.
    assert.ok(resultValue(await admin.callTool({ name: 'list_jobs', arguments: {} })));
  });

  test('analytics tools answer what the /v1 exports answer', async () => {
    const records = [
      { path: '/guide', userAgent: CHROME, timestamp: '2026-01-05T10:00:00Z' },
      { path: '/guide', userAgent: GPTBOT, timestamp: '2026-01-05T11:00:00Z' },
      { path: '/api', userAgent: GPTBOT, timestamp: '2026-01-06T09:30:00Z' },
      { path: '/api.md', userAgent: GPTBOT, timestamp: '2026-01-06T09:40:00Z' },
      { type: 'mcp', tool: 'search', clientName: 'cursor', timestamp: '2026-01-06T09:45:00Z' },
    ];
    const ingested = await app.inject({
      method: 'POST',
      url: `/v1/analytics/${seeded.project.id}/events`,
      headers: bearer(seeded.ingestKey),
      payload: records,
    });
    assert.equal(ingested.statusCode, 202, ingested.body);
    const range = { dateFrom: '2026-01-01', dateTo: '2026-02-01' };
    const pairs: [string, string, Record<string, unknown>][] = [
      ['get_page_views', 'views?dateFrom=2026-01-01&dateTo=2026-02-01&limit=1', { ...range, limit: 1 }],
      ['get_ai_agents', 'agents?dateFrom=2026-01-01&dateTo=2026-02-01', range],
      [
        'get_ai_agents',
        'agents?dateFrom=2026-01-01&dateTo=2026-02-01&format=markdown&split=format',
        { ...range, format: 'markdown', split: 'format' },
      ],
      ['get_mcp_tool_calls', 'mcp-tools?dateFrom=2026-01-01&dateTo=2026-02-01', range],
      ['get_visitors', 'visitors?dateFrom=2026-01-01&dateTo=2026-02-01', range],
      ['get_ai_referrals', 'referrals?dateFrom=2026-01-01&dateTo=2026-02-01', range],
      [
        'get_traffic_timeseries',
        'timeseries?dateFrom=2026-01-01&dateTo=2026-01-08&interval=day',
        {
          dateFrom: '2026-01-01',
          dateTo: '2026-01-08',
          interval: 'day',
        },
      ],
      [
        'get_traffic_timeseries',
        'timeseries?dateFrom=2026-01-01&dateTo=2026-01-08&format=mcp&split=format',
        { dateFrom: '2026-01-01', dateTo: '2026-01-08', format: 'mcp', split: 'format' },
      ],
    ];
    for (const [tool, path, args] of pairs) {
      const viaMcp = resultValue(await reader.callTool({ name: tool, arguments: args }));
      const viaHttp = await app.inject({
        url: `/v1/analytics/${seeded.project.id}/${path}`,
        headers: bearer(seeded.readKey),
      });
      assert.equal(viaHttp.statusCode, 200, viaHttp.body);
      assert.deepEqual(viaMcp, viaHttp.json(), tool);
    }
    const views = resultValue<{ totals: { human: number; ai: number }; hasMore: boolean }>(
      await reader.callTool({ name: 'get_page_views', arguments: { ...range, limit: 1 } }),
    );
    // The .md fetch counts for /api and the MCP call for /mcp: AI views like the others.
    assert.deepEqual(views.totals, { human: 1, ai: 4, total: 5 });
    assert.equal(views.hasMore, true);
    const calls = resultValue<{ totals: { calls: number } }>(
      await reader.callTool({ name: 'get_mcp_tool_calls', arguments: range }),
    );
    assert.deepEqual(calls.totals, { calls: 1 });
  });

  test('get_usage answers what GET /v2/agent/{projectId}/usage answers, in each grouping', async () => {
    for (const groupBy of ['day', 'model', 'job'] as const) {
      const viaMcp = resultValue<{ groupBy: string }>(
        await reader.callTool({ name: 'get_usage', arguments: { groupBy } }),
      );
      const viaHttp = await app.inject({
        url: `/v2/agent/${seeded.project.id}/usage?groupBy=${groupBy}`,
        headers: bearer(seeded.readKey),
      });
      assert.equal(viaHttp.statusCode, 200, viaHttp.body);
      assert.equal(viaMcp.groupBy, groupBy);
      assert.deepEqual(viaMcp, viaHttp.json(), groupBy);
    }
  });
});

// Shared by the MCP tests: the SDK's own client over streamable HTTP (to a listening app) and over
// stdio (to `docwright mcp`, started as a real process), and readers for tool results.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../src/http/context.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The app listening on a free loopback port; returns its base URL. */
export async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** An initialized SDK client talking to baseUrl/mcp with the key. */
export async function httpClient(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'docwright-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

export interface StdioHandle {
  client: Client;
  stderr: () => string;
}

/** An SDK client that started `docwright mcp` (node src/main/cli.ts mcp) as its server process. */
export async function stdioClient(baseUrl: string, key: string): Promise<StdioHandle> {
  const transport = stdioTransport(baseUrl, key);
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const client = new Client({ name: 'docwright-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export function stdioTransport(baseUrl: string, key: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['src/main/cli.ts', 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DOCWRIGHT_URL: baseUrl, DOCWRIGHT_API_KEY: key },
    stderr: 'pipe',
  });
}

/** A successful result's structured value. */
export function resultValue<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  assert.notEqual(r.isError, true, `tool failed: ${JSON.stringify(r.content)}`);
  assert.ok(r.structuredContent, 'structured content');
  // The text block carries the same value, for clients that read only text.
  const first = r.content[0];
  assert.equal(first?.type, 'text');
  assert.deepEqual(JSON.parse((first as { text: string }).text), r.structuredContent);
  return r.structuredContent as T;
}

export interface ToolErrorBody {
  error: string;
  code: string;
  requestId: string;
  details?: { location?: string; name?: string; message: string }[];
}

/** A failed result's error body (the API's shape). */
export function errorOf(result: unknown): ToolErrorBody {
  const r = result as CallToolResult;
  assert.equal(r.isError, true, `expected a tool error, got ${JSON.stringify(r).slice(0, 300)}`);
  assert.equal(r.structuredContent, undefined);
  const body = JSON.parse((r.content[0] as { text: string }).text) as ToolErrorBody;
  assert.match(body.requestId, /^req_/);
  return body;
}

export const READ_TOOLS = [
  'get_job',
  'list_jobs',
  'list_job_events',
  'get_job_diff',
  'get_page_views',
  'get_visitors',
  'get_ai_referrals',
  'get_ai_agents',
  'get_traffic_timeseries',
  'get_mcp_tool_calls',
  'get_usage',
];
export const WRITE_TOOLS = ['create_job', 'follow_up_job', 'cancel_job', 'archive_job'];

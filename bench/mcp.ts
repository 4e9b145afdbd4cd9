// What reading a job through MCP costs next to reading it through the HTTP API, on one server in
// one run: GET /v2/agent/{projectId}/job/{id} (fetch, JSON parsed) is the baseline; against it,
// the get_job tool called by the SDK's own client over streamable HTTP (what an assistant does:
// its JSON-RPC checks and the output-schema check included), and the same tools/call posted
// with fetch (the server's side alone: authentication, a server built for the key, the SDK's
// transport, the argument check, the service call). The server's own time per request (arrival to
// last byte) is reported for both as well. Samples alternate between the three so
// they share the machine's noise; the goal is an MCP read at most 1.5 times the HTTP read.
//
// Run: npm run bench:mcp
//   SAMPLES=500            timed reads of each kind (after WARMUP=100 untimed ones)
//   BACKENDS=pglite,postgres   which engines (PostgreSQL: a fresh database on TEST_DATABASE_URL's
//                              server, dropped afterwards)

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createJob } from '../src/modules/jobs/index.ts';
import { bearer, createTestApp, seedProject } from '../test/helpers/app.ts';
import { openTestDatabase } from '../test/helpers/databases.ts';
import { figureLine, percentile, timed } from './lib/stats.ts';

const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};
const SAMPLES = count('SAMPLES', 500);
const WARMUP = count('WARMUP', 100);
const BACKENDS = (process.env.BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim());

for (const backend of BACKENDS) {
  if (backend !== 'pglite' && backend !== 'postgres') throw new Error(`unknown backend ${backend}`);
  await measure(backend);
}

async function measure(BACKEND: 'pglite' | 'postgres'): Promise<void> {
  const db = await openTestDatabase(BACKEND);
  const app = await createTestApp(db);
  try {
    const { project, readKey } = await seedProject(db);
    const { job } = await createJob(
      db,
      { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-bench' },
      {
        projectId: project.id,
        prompt: 'Benchmark job',
        idempotencyKey: null,
      },
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    const base = `http://127.0.0.1:${address.port}`;
    // The server's own time per request: from the request's arrival to the last byte of the answer.
    const serverMs: { http: number[]; mcp: number[] } = { http: [], mcp: [] };
    let recording = false;
    let connections = 0;
    app.server.on('connection', () => {
      if (recording) connections++;
    });
    app.server.prependListener('request', (req, res) => {
      if (!recording) return;
      const start = process.hrtime.bigint();
      res.once('finish', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        (req.url === '/mcp' ? serverMs.mcp : serverMs.http).push(ms);
      });
    });

    const jobUrl = `${base}/v2/agent/${project.id}/job/${job.id}`;
    const httpRead = async () => {
      const res = await fetch(jobUrl, { headers: bearer(readKey) });
      const body = (await res.json()) as { id: string };
      assert.equal(body.id, job.id);
    };

    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: bearer(readKey) } }),
    );
    await client.listTools(); // the client checks results against the listed output schemas
    const sdkRead = async () => {
      const result = await client.callTool({ name: 'get_job', arguments: { jobId: job.id } });
      assert.equal((result.structuredContent as { id: string }).id, job.id);
    };

    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_job', arguments: { jobId: job.id } },
    });
    const rawHeaders = {
      ...bearer(readKey),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    };
    const rawRead = async () => {
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: rawHeaders, body: call });
      const text = await res.text();
      // One JSON answer, or one SSE event whose data is the answer.
      const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
      const answer = JSON.parse(json) as { result: { structuredContent: { id: string } } };
      assert.equal(answer.result.structuredContent.id, job.id);
    };

    for (let i = 0; i < WARMUP; i++) {
      await httpRead();
      await sdkRead();
      await rawRead();
    }
    recording = true;
    const http: number[] = [];
    const sdk: number[] = [];
    const raw: number[] = [];
    const cpu = { http: 0, sdk: 0, raw: 0 };
    // CPU time of this process (server and client alike, and PGlite's queries): steadier than wall
    // time on a machine shared with other work.
    const cpuTimed = async (kind: keyof typeof cpu, read: () => Promise<void>) => {
      const before = process.cpuUsage();
      const ms = await timed(read);
      const used = process.cpuUsage(before);
      cpu[kind] += (used.user + used.system) / 1000;
      return ms;
    };
    for (let i = 0; i < SAMPLES; i++) {
      http.push(await cpuTimed('http', httpRead));
      sdk.push(await cpuTimed('sdk', sdkRead));
      raw.push(await cpuTimed('raw', rawRead));
    }
    await client.close();

    console.log(`backend: ${BACKEND}; ${SAMPLES} reads of each kind after ${WARMUP} untimed ones`);
    for (const p of [50, 99]) {
      const baseline = percentile(http, p);
      console.log(figureLine(`${BACKEND}_mcp_get_job_sdk_client_p${p}`, percentile(sdk, p), 'ms', baseline));
      console.log(figureLine(`${BACKEND}_mcp_get_job_raw_post_p${p}`, percentile(raw, p), 'ms', baseline));
    }
    const cpuBaseline = cpu.http / SAMPLES;
    console.log(
      figureLine(`${BACKEND}_mcp_get_job_sdk_client_cpu_mean`, cpu.sdk / SAMPLES, 'ms', cpuBaseline),
    );
    console.log(figureLine(`${BACKEND}_mcp_get_job_raw_post_cpu_mean`, cpu.raw / SAMPLES, 'ms', cpuBaseline));
    for (const p of [50, 99]) {
      const baseline = percentile(serverMs.http, p);
      console.log(
        figureLine(`${BACKEND}_mcp_get_job_server_time_p${p}`, percentile(serverMs.mcp, p), 'ms', baseline),
      );
    }
    console.log(`connections opened while measuring: ${connections}`);
    const ratio = percentile(sdk, 50) / percentile(http, 50);
    console.log(
      `goal (${BACKEND}): p50 MCP read <= 1.5 x HTTP read: ${ratio <= 1.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)})`,
    );
  } finally {
    await app.close();
    await db.close();
  }
}

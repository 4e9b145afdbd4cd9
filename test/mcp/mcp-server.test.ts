// The MCP server itself (src/mcp/server.ts) through the SDK's in-memory transport, on both
// engines: checks that the HTTP layer makes first for /mcp (NUL characters) hold here too, and a
// fault that is not the caller's answers with a request id and no internals, and is logged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Database } from '../../src/db/database.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { curatedAgentCatalog } from '../../src/modules/analytics/index.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { errorOf, resultValue } from './mcp-helpers.ts';

async function connected(db: Database, projectId: string, faults: unknown[]): Promise<Client> {
  const server = createMcpServer(
    {
      db,
      config: { jobRateLimitPerHour: 100, defaultModel: 'openai:gpt-test' },
      agentCatalog: curatedAgentCatalog(),
      logFault: (error) => faults.push(error),
    },
    { scope: 'admin', projectId, requestId: 'req_test' },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory', version: '1' });
  await client.connect(clientSide);
  return client;
}

await forEachBackend('MCP server', ({ db }) => {
  test('a NUL character in an argument is refused by name', async () => {
    const { project } = await seedProject(db());
    const client = await connected(db(), project.id, []);
    const body = errorOf(await client.callTool({ name: 'create_job', arguments: { prompt: 'a\u0000b' } }));
    assert.equal(body.code, 'nul_character');
    assert.equal(body.details?.[0]?.name, 'prompt');
    assert.equal((await db().query('SELECT id FROM jobs WHERE project_id = $1', [project.id])).length, 0);
    await client.close();
  });

  test('a fault is logged and answered with the request id only', async () => {
    const { project } = await seedProject(db());
    const faults: unknown[] = [];
    const broken: Database = {
      ...db(),
      query: async () => {
        throw new Error('relation "secret_internal_table" does not exist');
      },
    };
    const client = await connected(broken, project.id, faults);
    const body = errorOf(await client.callTool({ name: 'get_job', arguments: { jobId: 'job_x' } }));
    assert.equal(body.code, 'internal_error');
    assert.equal(body.requestId, 'req_test');
    assert.doesNotMatch(body.error, /secret_internal_table/);
    assert.equal(faults.length, 1);
    // The same server answers the next call.
    const working = await connected(db(), project.id, faults);
    assert.deepEqual(resultValue(await working.callTool({ name: 'list_jobs', arguments: {} })), {
      jobs: [],
      nextCursor: null,
    });
    await client.close();
    await working.close();
  });
});

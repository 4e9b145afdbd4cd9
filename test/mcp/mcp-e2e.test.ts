// End to end through MCP, on both engines: jobs created, followed up, cancelled and archived by
// the SDK's own client, over streamable HTTP and over stdio (`docwright mcp` as a real process),
// run by the real worker and agent with the scripted model stand-in, the git server and the
// GitHub fake (behind Prism): the pull request exists and the tools show it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createKey, revokeKey } from '../../src/modules/keys/service.ts';
import { type AgentHarness, startAgentHarness } from '../e2e/agent-harness.ts';
import { eventually, scriptDocsEdit } from '../e2e/scripts.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import {
  errorOf,
  httpClient,
  listen,
  READ_TOOLS,
  resultValue,
  type StdioHandle,
  stdioClient,
  stdioTransport,
  WRITE_TOOLS,
} from './mcp-helpers.ts';

interface JobValue {
  id: string;
  status: string;
  prLink: string | null;
  branch: string | null;
  archivedAt: string | null;
  error: { code: string } | null;
}

await forEachBackend('MCP end to end', ({ db }) => {
  let h: AgentHarness;
  let baseUrl: string;
  let admin: Client;
  let readKey: string;
  let readKeyId: string;
  const stdio: StdioHandle[] = [];

  before(async () => {
    h = await startAgentHarness(db());
    baseUrl = await listen(h.app);
    admin = await httpClient(baseUrl, h.adminKey);
    const created = await createKey(db(), { projectId: h.project.id, scope: 'read' });
    readKey = created.key;
    readKeyId = created.id;
  });
  after(async () => {
    h.intercept = null;
    for (const s of stdio) await s.client.close();
    await admin?.close();
    await h?.close();
  });

  test('over HTTP: create and wait, then diff, events, list, follow-up, archive', async () => {
    scriptDocsEdit(h.llm);
    const progress: number[] = [];
    const created = await admin.callTool(
      { name: 'create_job', arguments: { prompt: 'Explain the --yes flag', waitSeconds: 60 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true, timeout: 90_000 },
    );
    const job = resultValue<JobValue>(created);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pulls = h.github.fake.pulls('acme', 'docs');
    assert.equal(job.prLink, pulls.at(-1)?.html_url);
    assert.ok(progress.length >= 1, 'progress was reported while waiting');

    const diff = resultValue<{ diff: string; truncated: boolean }>(
      await admin.callTool({ name: 'get_job_diff', arguments: { jobId: job.id } }),
    );
    assert.match(diff.diff, /^\+Run the installer with `--yes` to accept the defaults\.$/m);
    assert.equal(diff.truncated, false);

    const events = resultValue<{ events: { id: number; type: string }[] }>(
      await admin.callTool({ name: 'list_job_events', arguments: { jobId: job.id } }),
    );
    const types = events.events.map((e) => e.type);
    for (const t of ['created', 'started', 'committed', 'pushed', 'pull_request', 'completed']) {
      assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
    }
    const page = resultValue<{ events: { id: number }[] }>(
      await admin.callTool({
        name: 'list_job_events',
        arguments: { jobId: job.id, after: events.events[0]!.id, limit: 2 },
      }),
    );
    assert.deepEqual(
      page.events.map((e) => e.id),
      events.events.slice(1, 3).map((e) => e.id),
    );

    const listed = resultValue<{ jobs: JobValue[] }>(
      await admin.callTool({ name: 'list_jobs', arguments: { status: 'completed' } }),
    );
    assert.ok(listed.jobs.some((j) => j.id === job.id));

    h.llm.enqueue(
      reply.toolCall('edit_file', {
        path: 'docs/guide.md',
        old_text: 'Restart the service.',
        new_text: 'Restart the service (it takes a minute).',
      }),
      reply.toolCall('finish', { title: 'Also restarts', summary: 'Noted how long a restart takes.' }),
    );
    const followed = resultValue<JobValue>(
      await admin.callTool({
        name: 'follow_up_job',
        arguments: { jobId: job.id, prompt: 'Say how long a restart takes' },
      }),
    );
    assert.equal(followed.status, 'active');
    const done = await eventually(
      'the follow-up to end',
      async () => {
        const current = resultValue<JobValue>(
          await admin.callTool({ name: 'get_job', arguments: { jobId: job.id } }),
        );
        return current.status === 'active' ? null : current;
      },
      60_000,
    );
    assert.equal(done.status, 'completed');
    assert.equal(done.prLink, job.prLink, 'the same pull request');
    assert.match((await h.fileOnBranch(done.branch!, 'docs/guide.md')) ?? '', /takes a minute/);

    const archived = resultValue<JobValue>(
      await admin.callTool({ name: 'archive_job', arguments: { jobId: job.id } }),
    );
    assert.equal(archived.status, 'archived');
    assert.ok(archived.archivedAt);
  });

  test('over HTTP: cancel stops a running job', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let stopped = false;
    h.intercept = async (input) => {
      started();
      await new Promise((resolve) => input.signal.addEventListener('abort', resolve, { once: true }));
      stopped = true;
      return { status: 'failed', code: 'cancelled', message: 'Cancelled by a client request.' };
    };
    try {
      const job = resultValue<JobValue>(
        await admin.callTool({ name: 'create_job', arguments: { prompt: 'Rewrite everything' } }),
      );
      await running;
      const cancelled = resultValue<JobValue>(
        await admin.callTool({ name: 'cancel_job', arguments: { jobId: job.id } }),
      );
      assert.equal(cancelled.status, 'failed');
      assert.equal(cancelled.error?.code, 'cancelled');
      await eventually('the run to stop', () => stopped);
    } finally {
      h.intercept = null;
    }
  });

  test('over stdio: docwright mcp lists the tools and runs a job to its pull request', async () => {
    const s = await stdioClient(baseUrl, h.adminKey);
    stdio.push(s);
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort());
    assert.equal(s.client.getServerVersion()?.name, 'docwright');

    scriptDocsEdit(h.llm, 'Document the --yes flag again');
    const before = h.github.fake.pulls('acme', 'docs').length;
    const job = resultValue<JobValue>(
      await s.client.callTool(
        { name: 'create_job', arguments: { prompt: 'Explain the --yes flag, from stdio', waitSeconds: 60 } },
        undefined,
        { resetTimeoutOnProgress: true, timeout: 90_000, onprogress: () => {} },
      ),
    );
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pulls = h.github.fake.pulls('acme', 'docs');
    assert.equal(pulls.length, before + 1);
    assert.equal(job.prLink, pulls.at(-1)?.html_url);
    const got = resultValue<JobValue>(
      await s.client.callTool({ name: 'get_job', arguments: { jobId: job.id } }),
    );
    assert.deepEqual(got, job);

    // Tool errors and protocol errors come through unchanged.
    const missing = errorOf(await s.client.callTool({ name: 'get_job', arguments: { jobId: 'job_nope' } }));
    assert.equal(missing.code, 'job_not_found');
    const bad = errorOf(await s.client.callTool({ name: 'list_jobs', arguments: { limit: 0 } }));
    assert.equal(bad.details?.[0]?.name, 'limit');
    await assert.rejects(s.client.callTool({ name: 'nope', arguments: {} }), /Unknown tool "nope"/);
    assert.equal(s.stderr(), '', 'nothing on stderr');
  });

  test('over stdio: a read key sees the read tools only and is refused a write tool', async () => {
    const s = await stdioClient(baseUrl, readKey);
    stdio.push(s);
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS].sort());
    const refused = errorOf(await s.client.callTool({ name: 'create_job', arguments: { prompt: 'No' } }));
    assert.equal(refused.code, 'insufficient_scope');
    assert.ok(resultValue(await s.client.callTool({ name: 'list_jobs', arguments: { limit: 1 } })));
    // A key revoked while the assistant runs: the next call fails, saying why, without the key.
    await revokeKey(db(), readKeyId);
    await assert.rejects(s.client.callTool({ name: 'list_jobs', arguments: {} }), (error: Error) => {
      assert.match(error.message, /The API key has been revoked\. \(code invalid_api_key/);
      assert.doesNotMatch(error.message, new RegExp(readKey));
      return true;
    });
  });

  test('over stdio: a refused key ends docwright mcp with the reason on stderr, never the key', async () => {
    const wrongKey = `dw_${'B'.repeat(38)}`;
    const transport = stdioTransport(baseUrl, wrongKey);
    let stderr = '';
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'refused', version: '1' });
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await assert.rejects(client.connect(transport));
    await closed;
    assert.match(stderr, /error: cannot use the docwright MCP endpoint at http:\/\/127\.0\.0\.1:\d+\/mcp: /);
    assert.match(stderr, /API key|bearer token/);
    assert.doesNotMatch(stderr, new RegExp(wrongKey));
  });
});

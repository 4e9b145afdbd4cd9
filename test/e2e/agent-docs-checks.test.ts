// The docs checks end to end, with the GitHub fake and the scripted model: the model breaks a
// link, check_docs reports it, the model fixes it; with checks warn, a pull request whose changes
// leave a problem is a draft whose body lists it; with block, none is opened, the branch is
// pushed and the job fails with docs_checks_failed; GET .../checks answers the last result.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { DocwrightClient, NotFoundError } from '../../src/sdk/index.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { type RecordedRequest, reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';

const BREAK = {
  path: 'docs/guide.md',
  old_text: 'Edit the settings file.',
  new_text: 'Edit the settings file (see [the FAQ](faq.md#settings)).',
};

/** A script step that checks what the model was told last, then answers `next`. */
const expectingToolResult =
  (pattern: RegExp, next: ReturnType<typeof reply.toolCall>) => (request: RecordedRequest) => {
    const output = request.latestToolResults.map((r) => r.output).join('\n');
    assert.match(output, pattern);
    return next;
  };

const expectingUserText =
  (pattern: RegExp, next: ReturnType<typeof reply.toolCall>) => (request: RecordedRequest) => {
    assert.match(request.userTexts.at(-1) ?? '', pattern);
    return next;
  };

await forEachBackend('docs checks on agent jobs, end to end', ({ db }) => {
  let h: AgentHarness;
  before(async () => {
    h = await startAgentHarness(db());
  });
  after(() => h.close());

  const checks = async (jobId: string) =>
    h.app.inject({
      url: `/v2/agent/${h.project.id}/job/${jobId}/checks`,
      headers: { authorization: `Bearer ${h.adminKey}` },
    });

  test('the model breaks a link, check_docs reports it, the model fixes it', async () => {
    await h.setSettings({});
    h.llm.enqueue(
      reply.toolCall('edit_file', BREAK),
      reply.toolCall('check_docs', {}),
      expectingToolResult(
        /docs\/guide\.md:9 \[link_broken\] The link target "faq\.md" does not exist\. Fix: /,
        reply.toolCall('edit_file', {
          path: 'docs/guide.md',
          old_text: '[the FAQ](faq.md#settings)',
          new_text: '[the API](reference/api.md#get-items)',
        }),
      ),
      reply.toolCall('check_docs', { paths: ['docs/guide.md'] }),
      expectingToolResult(
        /^No problems introduced by this job \(framework: markdown;/,
        reply.toolCall('finish', { title: 'Link the API', summary: 'Linked the API from the guide.' }),
      ),
    );
    const created = await h.createJob('Link the API reference from the guide');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pull = h.github.fake.pulls('acme', 'docs').find((p) => p.html_url === job.prLink)!;
    assert.equal(pull.draft, false);
    assert.doesNotMatch(pull.body ?? '', /docs checks/);
    const events = await h.events(created.id);
    const framework = events.find((e) => e.type === 'docs_framework');
    assert.equal(framework?.data.framework, 'markdown');
    assert.deepEqual(framework?.data.notes, []);
    const runs = events.filter((e) => e.type === 'docs_checks').map((e) => e.data);
    assert.deepEqual(
      runs.map((r) => [r.trigger, r.introducedCount]),
      [
        ['tool', 1],
        ['tool', 0],
        ['publish', 0],
      ],
    );
    const res = await checks(created.id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().passed, true);
    assert.equal(res.json().trigger, 'publish');
    assert.equal(res.json().framework, 'markdown');
  });

  test('warn: a problem left after the fix turns makes a draft pull request that lists it', async () => {
    await h.setSettings({ checks: 'warn' });
    const finish = reply.toolCall('finish', { title: 'Mention the FAQ', summary: 'Pointed to the FAQ.' });
    h.llm.enqueue(
      reply.toolCall('edit_file', BREAK),
      finish,
      // Two fix turns, each told what is broken; the model does not fix it.
      expectingUserText(/docs checks found problems your changes introduced[\s\S]*link_broken/, finish),
      expectingUserText(/docs checks found problems/, finish),
    );
    const created = await h.createJob('Mention the FAQ in the guide');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(job.usage?.steps, 4);
    const pull = h.github.fake.pulls('acme', 'docs').find((p) => p.html_url === job.prLink)!;
    assert.equal(pull.draft, true);
    assert.match(pull.body ?? '', /found 1 problems this change introduced/);
    assert.match(pull.body ?? '', /`docs\/guide\.md:9` \*\*link_broken\*\*/);
    const res = await checks(created.id);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.passed, false);
    assert.equal(body.trigger, 'after_fix');
    assert.deepEqual(
      body.introduced.map((p: { code: string; file: string; line: number }) => [p.code, p.file, p.line]),
      [['link_broken', 'docs/guide.md', 9]],
    );
    // The typed client reads the same answer.
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const client = new DocwrightClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: h.adminKey });
    const typed = await client.getJobChecks(h.project.id, created.id);
    assert.equal(typed.introduced[0]?.hint, body.introduced[0].hint);
    const missing = await client.getJobChecks(h.project.id, 'job_doesnotexist00').catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError && missing.code === 'job_not_found', String(missing));
  });

  test('warn: the fix turn fixes it, and the pull request is ready for review', async () => {
    h.llm.enqueue(
      reply.toolCall('edit_file', BREAK),
      reply.toolCall('finish', { title: 'Mention the settings', summary: 'Pointed to the settings.' }),
      expectingUserText(
        /link_broken/,
        reply.toolCall('edit_file', {
          path: 'docs/guide.md',
          old_text: 'faq.md#settings',
          new_text: '#configure',
        }),
      ),
      reply.toolCall('finish', { title: 'Mention the settings', summary: 'Linked the configure section.' }),
    );
    const created = await h.createJob('Mention the settings section');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const pull = h.github.fake.pulls('acme', 'docs').find((p) => p.html_url === job.prLink)!;
    assert.equal(pull.draft, false);
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /\(#configure\)/);
    assert.equal((await checks(created.id)).json().passed, true);
  });

  test('warn: no fix turn when the step bound leaves no room for one', async () => {
    await h.setSettings({ checks: 'warn', maxSteps: 3 });
    h.llm.enqueue(
      reply.toolCall('edit_file', BREAK),
      reply.toolCall('finish', { title: 'Mention the FAQ', summary: 'Pointed to the FAQ.' }),
    );
    const requestsBefore = h.llm.requests.length;
    const created = await h.createJob('Mention the FAQ within three steps');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(job.usage?.steps, 2);
    assert.equal(h.llm.requests.length - requestsBefore, 2);
    const pull = h.github.fake.pulls('acme', 'docs').find((p) => p.html_url === job.prLink)!;
    assert.equal(pull.draft, true);
    assert.equal((await checks(created.id)).json().trigger, 'publish');
  });

  test('block: nothing is opened, the branch is pushed, the job fails with docs_checks_failed', async () => {
    await h.setSettings({ checks: 'block' });
    const pullsBefore = h.github.fake.pulls('acme', 'docs').length;
    const finish = reply.toolCall('finish', { title: 'Mention the FAQ', summary: 'Pointed to the FAQ.' });
    h.llm.enqueue(reply.toolCall('edit_file', BREAK), finish, finish, finish);
    const created = await h.createJob('Mention the FAQ, blocked');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'docs_checks_failed');
    assert.match(job.error?.message ?? '', /introduced 1 docs problem/);
    assert.equal(h.github.fake.pulls('acme', 'docs').length, pullsBefore);
    assert.ok(job.branch);
    assert.match((await h.fileOnBranch(job.branch, 'docs/guide.md')) ?? '', /faq\.md#settings/);
    const res = await checks(created.id);
    assert.equal(res.json().mode, 'block');
    assert.equal(res.json().introducedCount, 1);
  });

  test('off: no checks run, no check_docs tool, and checks answers 404 job_checks_not_found', async () => {
    await h.setSettings({ checks: 'off' });
    h.llm.enqueue(
      (request) => {
        assert.ok(!request.toolNames.includes('check_docs'));
        return reply.toolCall('edit_file', BREAK);
      },
      reply.toolCall('finish', { title: 'Mention the FAQ', summary: 'Pointed to the FAQ.' }),
    );
    const created = await h.createJob('Mention the FAQ, unchecked');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed');
    const res = await checks(created.id);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'job_checks_not_found');
    assert.ok(!(await h.events(created.id)).some((e) => e.type.startsWith('docs_')));
    await h.setSettings({});
  });
});

// The GitHub end-to-end path on the two other code hosts: create a job → the worker → the scripted
// model reads and edits a Markdown page → commit → push to the git server, which demands the host's
// own git Authorization header → merge request (GitLab, through gitbeaker) or pull request (Gitea,
// through gitea-js) on the host's fake → the job is completed with prLink = its web URL. Then a
// follow-up updates the same one, and neither token nor model key leaks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, type HostKind, MODEL_KEY, startAgentHarness } from './agent-harness.ts';
import { gitAuthorization } from './code-host-stands.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';

const WEB: Record<Exclude<HostKind, 'github'>, RegExp> = {
  gitlab: /^https:\/\/gitlab\.example\.test\/acme\/docs\/-\/merge_requests\/1$/,
  gitea: /^https:\/\/gitea\.example\.test\/acme\/docs\/pulls\/1$/,
};

for (const kind of ['gitlab', 'gitea'] as const) {
  await forEachBackend(`agent jobs on ${kind}, end to end`, ({ db }) => {
    let h: AgentHarness;
    let firstJob = '';
    before(async () => {
      h = await startAgentHarness(db(), { kind });
    });
    after(() => h.close());

    test(`a prompt becomes a ${kind === 'gitlab' ? 'merge' : 'pull'} request with prLink = its web URL`, {
      timeout: 60_000,
    }, async () => {
      scriptDocsEdit(h.llm);
      const created = await h.createJob('Explain the --yes flag of the installer');
      firstJob = created.id;
      const job = await h.waitForJob(created.id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const pulls = h.host.pulls();
      assert.equal(pulls.length, 1);
      const pull = pulls[0]!;
      assert.equal(job.prLink, pull.url);
      assert.match(pull.url, WEB[kind]);
      assert.equal(pull.head, job.branch);
      assert.equal(pull.base, 'main');
      assert.equal(pull.title, 'Document the --yes flag');
      assert.match(pull.body, /Explained the --yes flag/);
      assert.match(pull.body, new RegExp(created.id));
      assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept/);
      assert.doesNotMatch((await h.fileOnBranch('main', 'docs/guide.md')) ?? '', /--yes/);
      // Every git request carried the host's header (the server answers 401 to anything else),
      // and the push went through it.
      assert.ok(h.git.requests.some((r) => r.service === 'git-receive-pack' && r.status === 200));
      assert.ok(h.git.requests.every((r) => r.hadAuthorization));
      assert.ok(!h.git.requests.some((r) => r.status === 401));
      const types = (await h.events(created.id)).map((e) => e.type);
      for (const t of ['started', 'workspace', 'committed', 'pushed', 'pull_request', 'completed']) {
        assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
      }
      // Removed after the outcome is recorded (docs/agent-jobs.md, step 7).
      await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
    });

    test('a follow-up continues the branch and updates the same one', { timeout: 60_000 }, async () => {
      h.llm.enqueue(
        reply.toolCall('edit_file', {
          path: 'docs/guide.md',
          old_text: 'Restart the service.',
          new_text: 'Restart the service (it takes a minute).',
        }),
        reply.toolCall('finish', { title: 'Document --yes and restarts', summary: 'Noted restart time.' }),
      );
      const res = await h.app.inject({
        method: 'POST',
        url: `/v2/agent/${h.project.id}/job/${firstJob}/message`,
        headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': 'application/json' },
        payload: { prompt: 'Also say how long a restart takes' },
      });
      assert.equal(res.statusCode, 200);
      const job = await h.waitForJob(firstJob);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const pulls = h.host.pulls();
      assert.equal(pulls.length, 1, 'no second request opened');
      assert.equal(job.prLink, pulls[0]!.url);
      assert.equal(pulls[0]!.title, 'Document --yes and restarts');
      const guide = (await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '';
      assert.match(guide, /--yes` to accept/);
      assert.match(guide, /it takes a minute/);
    });

    test('the token, its git header and the model key appear in no log, row or host record', {
      timeout: 60_000,
    }, async () => {
      const secrets = [h.token, gitAuthorization(kind, h.token).slice('Basic '.length), MODEL_KEY];
      const logText = h.logs.join('');
      const tables = await db().query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      let dump = '';
      for (const { table_name } of tables)
        dump += JSON.stringify(await db().query(`SELECT * FROM ${table_name}`));
      const bodies = h.host
        .pulls()
        .map((p) => `${p.title}\n${p.body}`)
        .join('\n');
      for (const secret of secrets) {
        assert.ok(!logText.includes(secret), 'not in logs');
        assert.ok(!dump.includes(secret), 'not in the database');
        assert.ok(!bodies.includes(secret), 'not in the pull request');
        assert.ok(!h.host.recordedText().includes(secret), 'not recorded by the fake');
      }
      assert.deepEqual(h.host.secretLeaks(), []);
    });
  });
}

// End to end: a merged pull request in the watched code repository (a real bare repository on
// the git smart-HTTP stand-in, its webhook from the GitHub fake, signed) → the automation worker
// fetches the merged commit into its code mirror and fills {{event.changedFiles}} and
// {{event.diff}} → the job's agent (the scripted model) reads the code with the code tools, at
// the merged commit even though the branch moved on since, inside the sandbox rules. Also: a
// public repository on another host is fetched without the project's token; one that cannot be
// fetched skips the run and says why; a huge diff is cut; `paths` works for merged pull requests;
// ordinary jobs get no code tools.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CodeMirrors } from '../../src/agent/code-source/code-mirror.ts';
import { createCodeChangeReader } from '../../src/agent/code-source/read-code-change.ts';
import type { CredentialsConfig } from '../../src/agent/job-credentials.ts';
import { AutomationWorker } from '../../src/modules/automations/index.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { githubDelivery } from '../stand-ins/code-host-webhooks.ts';
import { commitToBare, type GitHttpServer, startGitHttpServer } from '../stand-ins/git-http-server.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';
import { eventually, GUIDE_EDIT } from './scripts.ts';

const HOOK_SECRET = `hook-${randomBytes(12).toString('hex')}`;
const commitTo = (bare: string, files: Record<string, string | null>, message: string) =>
  commitToBare(bare, files, message);

const ENGINE = {
  'README.md': '# Engine\n',
  'src/installer.ts': 'export function install(args: string[]) {\n  return args;\n}\n',
  'src/config.ts': 'export const DEFAULTS = { color: true };\n',
  '.github/workflows/ci.yml': 'name: ci\non: push\njobs: {}\n',
};

await forEachBackend('automations read the watched code', ({ db }) => {
  let h: AgentHarness;
  let automations: AutomationWorker;
  let elsewhere: GitHttpServer;
  let publicHost: GitHttpServer;
  const base = () => `/v2/automations/${h.project.id}`;

  before(async () => {
    h = await startAgentHarness(db());
    await setProjectSecret(db(), h.secretKey, h.project.id, 'codeHostWebhookSecret', HOOK_SECRET);
    for (const name of ['engine', 'big', 'public', 'private', 'filtered'])
      h.github.fake.addRepo({ owner: 'acme', name });
    await h.git.createRepo('acme/engine', ENGINE);
    await h.git.createRepo('acme/big', ENGINE);
    await h.git.createRepo('acme/filtered', ENGINE);
    // Another host: one serving a public repository, one demanding a credential docwright lacks.
    publicHost = await startGitHttpServer({
      authorization: `Bearer ${randomBytes(8).toString('hex')}`,
      anonymousRead: true,
    });
    await publicHost.createRepo('acme/public', ENGINE);
    elsewhere = await startGitHttpServer({ authorization: `Bearer ${randomBytes(8).toString('hex')}` });
    await elsewhere.createRepo('acme/private', ENGINE);
    const config = {
      secretKey: h.secretKey,
      defaultModel: null,
      modelCredentials: {},
      codeHostTokens: { github: null, gitlab: null, gitea: null },
      repositories: TEST_REPOSITORIES,
    } as unknown as CredentialsConfig;
    automations = new AutomationWorker({
      db: db(),
      logger: createLogger('silent'),
      jobs: { jobRateLimitPerHour: 100, defaultModel: null },
      onJobQueued: () => h.worker.nudge(),
      pollIntervalMs: 100,
      // Its own mirrors, as a serve process on another machine than the job worker would have.
      readCodeChange: createCodeChangeReader({
        db: db(),
        config,
        mirrors: new CodeMirrors({ cacheDir: join(h.dataDir, 'automation-code-repos') }),
      }),
    });
    await automations.start();
  });
  after(async () => {
    await automations?.stop();
    await Promise.allSettled([publicHost?.close(), elsewhere?.close()]);
    await h?.close();
  });

  async function createAutomation(name: string, trigger: Record<string, unknown>, promptTemplate: string) {
    const created = await h.app.inject({
      method: 'POST',
      url: base(),
      headers: { ...bearer(h.adminKey), 'content-type': 'application/json' },
      payload: JSON.stringify({
        name,
        trigger: { type: 'code_change', host: 'github', ...trigger },
        promptTemplate,
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json() as { id: string };
  }

  /** Sends the merged pull request's webhook, with the clone URL the host would give. */
  async function merge(repo: string, cloneUrl: string, sha: string, title: string) {
    const payload = h.github.fake.mergeNewPull('acme', repo, {
      title,
      body: 'See the diff.',
      head: `feature/${randomBytes(3).toString('hex')}`,
      mergeCommitSha: sha,
    });
    (payload.repository as Record<string, unknown>).clone_url = cloneUrl;
    const delivery = await githubDelivery(HOOK_SECRET, 'pull_request', payload);
    const answer = await h.app.inject({
      method: 'POST',
      url: `${base()}/hooks/github`,
      headers: delivery.headers,
      payload: delivery.body,
    });
    assert.equal(answer.statusCode, 202, answer.body);
  }

  async function settledRun(automationId: string) {
    return eventually('the run to start or skip', async () => {
      const runs = (
        await h.app.inject({
          method: 'GET',
          url: `${base()}/${automationId}/runs`,
          headers: bearer(h.adminKey),
        })
      ).json().runs as { status: string; jobId: string | null; skipReason: string | null }[];
      return runs[0] && runs[0].status !== 'queued' ? runs[0] : null;
    });
  }

  test('the job reads the code at the merged commit; the prompt has its files and diff', async () => {
    const automation = await createAutomation(
      'Docs follow the engine',
      { repository: 'acme/engine' },
      'Files: {{event.changedFiles}}\nDiff:\n{{event.diff}}\nUpdate the install guide.',
    );
    const bare = h.git.repoPath('acme/engine');
    const merged = await commitTo(
      bare,
      {
        'src/installer.ts':
          'export const YES_FLAG = "--yes";\nexport function install(args: string[]) {\n  return args.includes(YES_FLAG);\n}\n',
      },
      'Add --yes to the installer (#1)',
    );
    // The branch moves on before the run is handled: the job must still see the merged commit.
    await commitTo(
      bare,
      { 'src/installer.ts': 'export const YES_FLAG = "--assume-yes";\n' },
      'Rename the flag',
    );

    h.llm.enqueue(
      reply.toolCall('code_read', { path: 'src/installer.ts' }),
      reply.toolCall('code_search', { pattern: 'YES_FLAG =' }),
      reply.toolCall('code_list', { pattern: '**' }),
      reply.toolCall('code_read', { path: '../docs/README.md' }),
      reply.toolCall('code_read', { path: '.github/workflows/ci.yml' }),
      reply.toolCall('edit_file', GUIDE_EDIT),
      reply.toolCall('finish', { title: 'Document the --yes flag', summary: 'From the code.' }),
    );
    const requestsBefore = h.llm.requests.length;
    await merge('engine', h.git.repoUrl('acme/engine'), merged, 'Add --yes to the installer');
    const started = await settledRun(automation.id);
    assert.equal(started.status, 'started', started.skipReason ?? '');
    const job = await h.waitForJob(started.jobId!);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));

    const first = h.llm.requests[requestsBefore]!;
    const prompt = first.userTexts.join('\n');
    assert.match(prompt, /Files: \["src\/installer\.ts"\]/, 'changedFiles is filled');
    assert.match(prompt, /\+export const YES_FLAG = "--yes";/, 'the diff is filled');
    assert.doesNotMatch(prompt, /assume-yes/, 'the diff is the merged change, not the later one');
    for (const tool of ['code_list', 'code_read', 'code_search'])
      assert.ok(first.toolNames.includes(tool), tool);

    const results = h.llm.requests.at(-1)!.toolResults;
    const output = (name: string, index = 0) => results.filter((r) => r.toolName === name)[index]!.output;
    assert.match(output('code_read'), /YES_FLAG = "--yes"/, 'code_read answers the merged commit');
    assert.doesNotMatch(output('code_read'), /assume-yes/);
    assert.match(output('code_search'), /src\/installer\.ts:1: export const YES_FLAG = "--yes";/);
    assert.match(output('code_list'), /src\/config\.ts/);
    assert.doesNotMatch(output('code_list'), /\.github\/workflows/, 'the deny list applies');
    assert.match(output('code_read', 1), /outside the repository/, 'a path outside is refused');
    assert.match(output('code_read', 2), /deny list/, 'a denied path is refused');
  });

  test('a huge diff is cut between files, with a note of what was left out', async () => {
    const automation = await createAutomation('Big', { repository: 'acme/big' }, 'Diff:\n{{event.diff}}');
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++)
      files[`src/generated/file-${String(i).padStart(2, '0')}.ts`] = `${'x'.repeat(70)}\n`.repeat(40);
    const merged = await commitTo(h.git.repoPath('acme/big'), files, 'Generate 30 files');
    h.llm.enqueue(reply.toolCall('finish', { title: 'Nothing to do', summary: 'Nothing.' }));
    const requestsBefore = h.llm.requests.length;
    await merge('big', h.git.repoUrl('acme/big'), merged, 'Generate files');
    const started = await settledRun(automation.id);
    assert.equal(started.status, 'started', started.skipReason ?? '');
    await h.waitForJob(started.jobId!);
    const prompt = h.llm.requests[requestsBefore]!.userTexts.join('\n');
    assert.match(
      prompt,
      /\[diff cut at 40000 characters: \d+ file\(s\) left out: src\/generated\/file-\d\d\.ts/,
    );
    assert.match(prompt, /diff --git a\/src\/generated\/file-00\.ts/, 'the first files are whole');
    const diff = prompt.slice(prompt.indexOf('Diff:'));
    assert.ok(diff.length < 43_000, `the diff part is ${diff.length} characters`);
  });

  test('a public repository on another host is read without the project token', async () => {
    const automation = await createAutomation('Public', { repository: 'acme/public' }, 'Update the docs.');
    const merged = await commitTo(
      publicHost.repoPath('acme/public'),
      { 'src/new.ts': 'export const NEW = 1;\n' },
      'New',
    );
    h.llm.enqueue(
      reply.toolCall('code_read', { path: 'src/new.ts' }),
      reply.toolCall('finish', { title: 'Nothing to do', summary: 'Nothing.' }),
    );
    await merge('public', publicHost.repoUrl('acme/public'), merged, 'New');
    const started = await settledRun(automation.id);
    assert.equal(started.status, 'started', started.skipReason ?? '');
    await h.waitForJob(started.jobId!);
    const read = h.llm.requests.at(-1)!.toolResults.find((r) => r.toolName === 'code_read');
    assert.match(read?.output ?? '', /NEW = 1/);
    assert.ok(publicHost.requests.length > 0);
    assert.ok(
      publicHost.requests.every((r) => !r.hadAuthorization),
      'no credential went to another host',
    );
  });

  test('a repository that cannot be fetched skips the run and says why', async () => {
    const automation = await createAutomation('Private', { repository: 'acme/private' }, 'Update the docs.');
    const merged = await commitTo(elsewhere.repoPath('acme/private'), { 'src/x.ts': 'x\n' }, 'X');
    await merge('private', elsewhere.repoUrl('acme/private'), merged, 'X');
    const skipped = await settledRun(automation.id);
    assert.equal(skipped.status, 'skipped');
    assert.match(
      skipped.skipReason ?? '',
      /the code repository acme\/private could not be read at [0-9a-f]{12}: /,
    );
    assert.ok(
      elsewhere.requests.every((r) => !r.hadAuthorization),
      'the project token stays on its host',
    );
  });

  test('paths filter merged pull requests by the files they changed', async () => {
    const automation = await createAutomation(
      'Filtered',
      { repository: 'acme/filtered', on: 'merged_pull_request', paths: ['docs-src/'] },
      'Update the docs.',
    );
    const merged = await commitTo(
      h.git.repoPath('acme/filtered'),
      { 'src/config.ts': 'export const DEFAULTS = {};\n' },
      'C',
    );
    await merge('filtered', h.git.repoUrl('acme/filtered'), merged, 'C');
    const skipped = await settledRun(automation.id);
    assert.equal(skipped.status, 'skipped');
    assert.match(skipped.skipReason ?? '', /no changed file is under the trigger's paths \(docs-src\/\)/);
  });

  test('an ordinary job gets no code tools', async () => {
    h.llm.enqueue(reply.toolCall('finish', { title: 'Nothing to do', summary: 'Nothing.' }));
    const requestsBefore = h.llm.requests.length;
    const job = await h.createJob('Check the guide.');
    await h.waitForJob(job.id);
    const tools = h.llm.requests[requestsBefore]!.toolNames;
    assert.ok(tools.includes('read_file'));
    assert.deepEqual(
      tools.filter((t) => t.startsWith('code_')),
      [],
    );
  });
});

// ciStatus on the three adapters through their real clients: Octokit against the GitHub fake
// behind Prism (every request and answer checked against GitHub's OpenAPI description), gitbeaker
// against the GitLab fake, gitea-js against the Gitea fake. Each host: a commit without checks
// (none), running (pending), passed, and failed with what the host says about the failure.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { cleanCiText, combineCiChecks } from '../../src/code-hosts/ci.ts';
import type { CodeHost } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { GiteaFake } from '../stand-ins/gitea-fake.ts';
import { GitLabFake } from '../stand-ins/gitlab-fake.ts';
import { type CheckedGitHub, startCheckedGitHub } from './github-stand.ts';

const SHA = (n: number) => `${String(n).repeat(40)}`.slice(0, 40);
const FAST_RETRY = { attempts: 1 };

describe('CI text cleaning', () => {
  test('ANSI colours, GitLab section markers and carriage returns go; the end of a log is kept', () => {
    const log = `section_start:1700000000:step_script\r\u001b[0K\u001b[32;1m$ npm test\u001b[0;m\nok\r\n\n\n\nnot ok 1 - links\n`;
    assert.equal(cleanCiText(log, 'end'), '$ npm test\nok\n\nnot ok 1 - links');
    const long = `${'x'.repeat(5000)}\nTHE END`;
    const kept = cleanCiText(long, 'end', 100)!;
    assert.equal(kept.length, 100);
    assert.ok(kept.endsWith('THE END') && kept.startsWith('… (cut)'));
    assert.equal(cleanCiText('  \u001b[0m \n', 'start'), null);
  });
  test('the overall state waits for every check', () => {
    assert.equal(combineCiChecks([]), 'none');
    const check = (state: 'pending' | 'success' | 'failure') => ({
      name: state,
      state,
      url: null,
      details: null,
    });
    assert.equal(combineCiChecks([check('failure'), check('pending')]), 'pending');
    assert.equal(combineCiChecks([check('failure'), check('success')]), 'failure');
    assert.equal(combineCiChecks([check('success')]), 'success');
  });
});

describe('GitHub ciStatus (Octokit → Prism → GitHub fake)', () => {
  const TOKEN = 'ghp_docwrightCiToken0123456789abcdefXYZ';
  let stand: CheckedGitHub;
  let host: CodeHost;
  before(async () => {
    stand = await startCheckedGitHub({ tokens: [TOKEN] });
    stand.fake.addRepo({ owner: 'acme', name: 'docs' });
    host = createCodeHost({
      kind: 'github',
      apiUrl: stand.apiUrl,
      credentials: { type: 'token', token: TOKEN },
      retry: FAST_RETRY,
    });
  });
  after(() => stand?.stop());
  afterEach(async () => {
    assert.deepEqual(
      await stand.prism.violations(),
      [],
      "Prism found requests or answers outside GitHub's description",
    );
  });
  const read = (sha: string) => host.ciStatus({ repositoryUrl: 'https://github.com/acme/docs', sha });

  test('a commit without check runs or statuses: none', async () => {
    assert.deepEqual(await read(SHA(1)), { state: 'none', checks: [] });
  });

  test('check runs and statuses together: pending, then failure with the output as details', async () => {
    const sha = SHA(2);
    const run = stand.fake.addCheckRun('acme', 'docs', { sha, name: 'build', status: 'in_progress' });
    stand.fake.addCommitStatus('acme', 'docs', { sha, context: 'ci/vale', state: 'success' });
    const running = await read(sha);
    assert.equal(running.state, 'pending');
    assert.deepEqual(
      running.checks.map((c) => [c.name, c.state]),
      [
        ['build', 'pending'],
        ['ci/vale', 'success'],
      ],
    );
    run.status = 'completed';
    run.conclusion = 'failure';
    run.output = {
      title: 'Link check failed',
      summary: '\u001b[31m1 broken link\u001b[0m',
      text: `docs/guide.md:9 faq.md does not exist (token ${TOKEN})`,
    };
    const failed = await read(sha);
    assert.equal(failed.state, 'failure');
    const build = failed.checks.find((c) => c.name === 'build')!;
    assert.equal(build.state, 'failure');
    assert.match(
      build.details!,
      /^Link check failed\n\n1 broken link\n\ndocs\/guide\.md:9 faq\.md does not exist/,
    );
    assert.ok(!build.details!.includes(TOKEN), 'the token is scrubbed from what the host said');
    assert.match(build.url!, /\/runs\/\d+$/);
  });

  test('a failing commit status carries its description and target URL; neutral runs pass', async () => {
    const sha = SHA(3);
    stand.fake.addCheckRun('acme', 'docs', { sha, name: 'lint', conclusion: 'neutral' });
    stand.fake.addCommitStatus('acme', 'docs', {
      sha,
      context: 'ci/jenkins',
      state: 'error',
      description: 'Build #12 errored',
      targetUrl: 'https://ci.example.test/job/12',
    });
    const status = await read(sha);
    assert.equal(status.state, 'failure');
    assert.deepEqual(
      status.checks.find((c) => c.name === 'ci/jenkins'),
      {
        name: 'ci/jenkins',
        state: 'failure',
        url: 'https://ci.example.test/job/12',
        details: 'Build #12 errored',
      },
    );
    assert.equal(status.checks.find((c) => c.name === 'lint')?.state, 'success');
  });

  test('a host error is a CodeHostError that says what was asked', async () => {
    stand.fake.fail({ status: 503, path: /check-runs$/ });
    await assert.rejects(read(SHA(4)), (error: Error) => {
      assert.equal(error.name, 'CodeHostError');
      assert.match(error.message, /check runs of commit 444444444444/);
      return true;
    });
  });
});

describe('GitLab ciStatus (gitbeaker → GitLab fake)', () => {
  const TOKEN = 'glpat-ciTokenForDocwrightTests01';
  const fake = new GitLabFake({ tokens: [TOKEN], webUrl: 'https://gitlab.example.test' });
  let host: CodeHost;
  let repositoryUrl: string;
  before(async () => {
    await fake.start();
    fake.addProject({ fullPath: 'docs-team/handbook' });
    repositoryUrl = `${fake.url}/docs-team/handbook.git`;
    host = createCodeHost({
      kind: 'gitlab',
      baseUrl: fake.url,
      credentials: { type: 'token', token: TOKEN },
      retry: FAST_RETRY,
    });
  });
  after(() => fake.stop());
  const read = (sha: string) => host.ciStatus({ repositoryUrl, sha });

  test('no pipeline for the commit: none', async () => {
    assert.deepEqual(await read(SHA(1)), { state: 'none', checks: [] });
  });

  test('the newest pipeline decides; a failed job carries the end of its log, allowed failures pass', async () => {
    const sha = SHA(2);
    fake.addPipeline('docs-team/handbook', { sha, jobs: [{ name: 'old', status: 'failed' }] });
    const pipeline = fake.addPipeline('docs-team/handbook', {
      sha,
      jobs: [
        { name: 'build', status: 'running' },
        { name: 'optional', status: 'failed', allowFailure: true },
      ],
    });
    const running = await read(sha);
    assert.equal(running.state, 'pending');
    assert.deepEqual(
      running.checks.map((c) => [c.name, c.state]),
      [
        ['build', 'pending'],
        ['optional', 'success'],
      ],
    );
    pipeline.jobs[0]!.status = 'failed';
    pipeline.jobs[0]!.log =
      `section_start:1:step_script\r\u001b[0K${'noise\n'.repeat(2000)}\u001b[31mERROR: docs/guide.md:9 broken link faq.md\u001b[0m\n${TOKEN}\n`;
    const failed = await read(sha);
    assert.equal(failed.state, 'failure');
    const build = failed.checks[0]!;
    assert.equal(build.url, `https://gitlab.example.test/docs-team/handbook/-/jobs/${pipeline.jobs[0]!.id}`);
    assert.ok(build.details!.length <= 4000);
    assert.match(build.details!, /ERROR: docs\/guide\.md:9 broken link faq\.md/);
    assert.ok(!build.details!.includes(TOKEN) && !build.details!.includes('\u001b'));
    assert.ok(fake.requests.some((r) => r.url.endsWith(`/jobs/${pipeline.jobs[0]!.id}/trace`)));
  });
});

describe('Gitea ciStatus (gitea-js → Gitea fake)', () => {
  const TOKEN = 'c1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
  const fake = new GiteaFake({ tokens: [TOKEN], webUrl: 'https://gitea.example.test' });
  let host: CodeHost;
  let repositoryUrl: string;
  before(async () => {
    await fake.start();
    fake.addRepo({ owner: 'docs-org', name: 'manual' });
    repositoryUrl = `${fake.url}/docs-org/manual.git`;
    host = createCodeHost({
      kind: 'gitea',
      baseUrl: fake.url,
      credentials: { type: 'token', token: TOKEN },
      retry: FAST_RETRY,
    });
  });
  after(() => fake.stop());
  const read = (sha: string) => host.ciStatus({ repositoryUrl, sha });

  test('no status for the commit (an empty combined status): none', async () => {
    assert.deepEqual(await read(SHA(1)), { state: 'none', checks: [] });
  });

  test('statuses: pending, then failure with the description and target URL; warnings pass', async () => {
    const sha = SHA(2);
    fake.addCommitStatus('docs-org', 'manual', { sha, context: 'ci/woodpecker', status: 'pending' });
    fake.addCommitStatus('docs-org', 'manual', { sha, context: 'lint', status: 'warning' });
    assert.equal((await read(sha)).state, 'pending');
    fake.addCommitStatus('docs-org', 'manual', {
      sha,
      context: 'ci/woodpecker',
      status: 'failure',
      description: 'Pipeline failed',
      targetUrl: 'https://ci.example.test/repos/1/pipeline/7',
    });
    const failed = await read(sha);
    assert.equal(failed.state, 'failure');
    assert.deepEqual(failed.checks, [
      {
        name: 'ci/woodpecker',
        state: 'failure',
        url: 'https://ci.example.test/repos/1/pipeline/7',
        details: 'Pipeline failed',
      },
      { name: 'lint', state: 'success', url: null, details: null },
    ]);
  });
});

// The GitHub adapter through the real Octokit against the GitHub fake, with Prism checking every
// request and answer against GitHub's OpenAPI description (a violation fails the test).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { CodeHost } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { assertNoSecrets, decodeBasicHeader, rejectsWith } from './assertions.ts';
import { type CheckedGitHub, startCheckedGitHub } from './github-stand.ts';

const TOKEN = 'ghp_docwrightTestToken0123456789abcdefXYZ';
const WRONG_TOKEN = 'ghp_wrongTokenThatGitHubDoesNotKnow98765';
const REPO_URL = 'https://github.com/acme/docs';
const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

describe('GitHub adapter (Octokit → Prism → GitHub fake)', () => {
  let stand: CheckedGitHub;
  let host: CodeHost;
  const messages: string[] = [];

  before(async () => {
    stand = await startCheckedGitHub({ tokens: [TOKEN] });
    stand.fake.addRepo({ owner: 'acme', name: 'docs', defaultBranch: 'trunk' });
    host = createCodeHost({
      kind: 'github',
      apiUrl: stand.apiUrl,
      credentials: { type: 'token', token: TOKEN },
      retry: FAST_RETRY,
    });
  });
  after(async () => {
    await stand?.stop();
  });
  afterEach(async () => {
    assert.deepEqual(
      await stand.prism.violations(),
      [],
      "Prism found requests or answers outside GitHub's description",
    );
  });

  const open = (head: string, extra: Partial<Parameters<CodeHost['openOrUpdatePullRequest']>[0]> = {}) =>
    host.openOrUpdatePullRequest({
      repositoryUrl: REPO_URL,
      head,
      base: 'trunk',
      title: `Update ${head}`,
      body: `Summary for ${head}`,
      draft: false,
      ...extra,
    });

  test('opens a pull request whose URL is the html_url GitHub gave', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/fix-typo-a1b2');
    const result = await open('docwright/fix-typo-a1b2');
    const pulls = stand.fake.pulls('acme', 'docs');
    assert.equal(pulls.length, 1);
    assert.deepEqual(result, { url: pulls[0]!.html_url, number: pulls[0]!.number, reused: false });
    assert.equal(result.url, 'https://github.com/acme/docs/pull/1');
    assert.equal(pulls[0]!.title, 'Update docwright/fix-typo-a1b2');
    assert.equal(pulls[0]!.body, 'Summary for docwright/fix-typo-a1b2');
    assert.equal(pulls[0]!.base, 'trunk');
    assert.equal(pulls[0]!.draft, false);
    const create = stand.fake.requests.find((r) => r.method === 'POST');
    assert.ok(create, 'a POST reached the fake');
    assert.equal(create.headers.authorization, 'token [REDACTED]');
  });

  test('opening again for the same head reuses the open pull request and updates title and body', async () => {
    const result = await open('docwright/fix-typo-a1b2', {
      title: 'Fix the typo, take two',
      body: 'Second summary',
    });
    const pulls = stand.fake.pulls('acme', 'docs');
    assert.equal(pulls.length, 1, 'no second pull request');
    assert.deepEqual(result, { url: pulls[0]!.html_url, number: 1, reused: true });
    assert.equal(pulls[0]!.title, 'Fix the typo, take two');
    assert.equal(pulls[0]!.body, 'Second summary');
  });

  test('unchanged title and body: reused without an update request', async () => {
    const before = stand.fake.requests.filter((r) => r.method === 'PATCH').length;
    const result = await open('docwright/fix-typo-a1b2', {
      title: 'Fix the typo, take two',
      body: 'Second summary',
    });
    assert.equal(result.reused, true);
    assert.equal(stand.fake.requests.filter((r) => r.method === 'PATCH').length, before);
  });

  test('a closed pull request is not reused: a new one is opened', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/closed-one');
    const first = await open('docwright/closed-one');
    stand.fake.closePull('acme', 'docs', first.number);
    const second = await open('docwright/closed-one');
    assert.equal(second.reused, false);
    assert.notEqual(second.number, first.number);
  });

  test('draft flag opens a draft pull request', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/draft-c3d4');
    const result = await open('docwright/draft-c3d4', { draft: true });
    const pull = stand.fake.pulls('acme', 'docs').find((p) => p.number === result.number);
    assert.equal(pull?.draft, true);
    assert.equal(pull?.title, 'Update docwright/draft-c3d4', 'GitHub has a real draft flag: no title prefix');
  });

  test('defaultBranch reads the repository', async () => {
    assert.equal(await host.defaultBranch(REPO_URL), 'trunk');
    assert.equal(await host.defaultBranch('https://github.com/acme/docs.git'), 'trunk');
  });

  test('gitAuthHeader is Basic x-access-token:<token>', async () => {
    const [user, password] = decodeBasicHeader(await host.gitAuthHeader());
    assert.equal(user, 'x-access-token');
    assert.equal(password, TOKEN);
  });

  test('a bad token fails with code_host_auth and the token is in no message, even when GitHub echoes it', async () => {
    stand.fake.echoCredentialsInErrors = true;
    try {
      const bad = createCodeHost({
        kind: 'github',
        apiUrl: stand.apiUrl,
        credentials: { type: 'token', token: WRONG_TOKEN },
        retry: FAST_RETRY,
      });
      stand.fake.addBranch('acme', 'docs', 'docwright/bad-token');
      const error = await rejectsWith(
        bad.openOrUpdatePullRequest({
          repositoryUrl: REPO_URL,
          head: 'docwright/bad-token',
          base: 'trunk',
          title: 't',
          body: 'b',
          draft: false,
        }),
        'code_host_auth',
        [WRONG_TOKEN, TOKEN],
      );
      assert.equal(error.status, 401);
      assert.match(error.message, /GitHub refused the credentials \(401 Bad credentials/);
      assert.match(error.message, /\[REDACTED\]/, 'the echoed token was scrubbed, not dropped silently');
      messages.push(error.message);
      const again = await rejectsWith(bad.defaultBranch(REPO_URL), 'code_host_auth', [WRONG_TOKEN]);
      messages.push(again.message);
    } finally {
      stand.fake.echoCredentialsInErrors = false;
    }
  });

  test('a missing base branch (422) fails with pr_failed naming the field', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/no-base');
    const error = await rejectsWith(open('docwright/no-base', { base: 'does-not-exist' }), 'pr_failed', [
      TOKEN,
    ]);
    assert.equal(error.status, 422);
    assert.match(error.message, /422 Validation Failed \(base invalid\)/);
    assert.match(error.message, /from docwright\/no-base into does-not-exist in acme\/docs/);
    messages.push(error.message);
  });

  test('an unknown repository (404) fails with pr_failed', async () => {
    const error = await rejectsWith(
      host.openOrUpdatePullRequest({
        repositoryUrl: 'https://github.com/acme/missing',
        head: 'x',
        base: 'main',
        title: 't',
        body: 'b',
        draft: false,
      }),
      'pr_failed',
      [TOKEN],
    );
    assert.equal(error.status, 404);
    assert.match(error.message, /acme\/missing/);
    messages.push(error.message);
  });

  test('a repository URL that names no repository fails before any request', async () => {
    const count = stand.fake.requests.length;
    await rejectsWith(host.defaultBranch('https://github.com/acme'), 'pr_failed', [TOKEN]);
    assert.equal(stand.fake.requests.length, count);
  });

  test('503s are retried, then the pull request opens', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/flaky');
    stand.fake.fail({ status: 503, method: 'POST', path: /\/pulls$/, times: 2 });
    const posts = () => stand.fake.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const result = await open('docwright/flaky');
    assert.equal(result.reused, false);
    assert.equal(posts() - before, 3, 'two failures and one success');
    assert.equal(stand.fake.pulls('acme', 'docs').filter((p) => p.head === 'docwright/flaky').length, 1);
  });

  test('a secondary rate limit (403 with Retry-After) is waited out and retried', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/rate-limited');
    stand.fake.fail({
      status: 403,
      method: 'POST',
      path: /\/pulls$/,
      headers: { 'retry-after': '0' },
      body: {
        message: 'You have exceeded a secondary rate limit.',
        documentation_url: 'https://docs.github.com/rest',
      },
    });
    const result = await open('docwright/rate-limited');
    assert.equal(result.reused, false);
  });

  test('503s that do not stop fail with pr_failed after the configured tries', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/down');
    stand.fake.fail({ status: 503, method: 'GET', path: /\/pulls$/, times: 2 });
    const twoTries = createCodeHost({
      kind: 'github',
      apiUrl: stand.apiUrl,
      credentials: { type: 'token', token: TOKEN },
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const error = await rejectsWith(
      twoTries.openOrUpdatePullRequest({
        repositoryUrl: REPO_URL,
        head: 'docwright/down',
        base: 'trunk',
        title: 't',
        body: 'b',
        draft: false,
      }),
      'pr_failed',
      [TOKEN],
    );
    assert.equal(error.status, 503);
    assert.match(error.message, /GitHub answered 503/);
  });

  test('a create whose answer was lost (GitHub then says it exists) reuses the existing pull request', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/lost-answer');
    const first = await open('docwright/lost-answer');
    // The lookup misses it (as if it raced with our own earlier create); GitHub answers 422 "already exists".
    stand.fake.fail({ status: 200, method: 'GET', path: /\/pulls$/, body: [] });
    const second = await open('docwright/lost-answer', { title: 'Renamed' });
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
    assert.equal(
      stand.fake.pulls('acme', 'docs').filter((p) => p.head === 'docwright/lost-answer').length,
      1,
    );
    assert.equal(stand.fake.pulls('acme', 'docs').find((p) => p.number === first.number)?.title, 'Renamed');
  });

  test('headIsNew: created without a lookup; one that exists all the same is found and reused', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/new-5e6f');
    const seen = stand.fake.requests.length;
    const first = await open('docwright/new-5e6f', { headIsNew: true });
    assert.deepEqual(
      stand.fake.requests.slice(seen).map((r) => r.method),
      ['POST'],
    );
    assert.equal(first.reused, false);
    const second = await open('docwright/new-5e6f', { headIsNew: true, title: 'Said new, was not' });
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
    const pulls = stand.fake.pulls('acme', 'docs').filter((p) => p.head === 'docwright/new-5e6f');
    assert.deepEqual(
      pulls.map((p) => p.title),
      ['Said new, was not'],
    );
  });

  test('the schema check bites: an answer missing html_url is caught by Prism', async () => {
    stand.fake.addBranch('acme', 'docs', 'docwright/sabotaged');
    stand.fake.sabotageNextPullAnswers(1);
    const oneTry = createCodeHost({
      kind: 'github',
      apiUrl: stand.apiUrl,
      credentials: { type: 'token', token: TOKEN },
      retry: { attempts: 1 },
    });
    const error = await rejectsWith(
      oneTry.openOrUpdatePullRequest({
        repositoryUrl: REPO_URL,
        head: 'docwright/sabotaged',
        base: 'trunk',
        title: 't',
        body: 'b',
        draft: false,
      }),
      'pr_failed',
      [TOKEN],
    );
    assert.equal(error.status, 500, 'Prism replaced the non-conforming answer');
    const violations = await stand.prism.violations();
    assert.ok(violations.length > 0, 'Prism logged the violation');
    assert.ok(
      /html_url|VIOLATIONS/.test(violations.join('\n')),
      `the violation names the problem: ${violations.join('\n')}`,
    );
    stand.prism.clear();
  });

  test('no token appears in any request the fake recorded outside its header, nor in any error message', () => {
    assert.deepEqual(stand.fake.secretLeaks, []);
    const recorded = stand.fake.recordedText();
    assertNoSecrets(recorded, [TOKEN, WRONG_TOKEN]);
    assert.ok(recorded.includes('token [REDACTED]'), 'credentials were recorded redacted');
    assert.ok(messages.length >= 4);
    for (const message of messages) assertNoSecrets(message, [TOKEN, WRONG_TOKEN]);
  });
});

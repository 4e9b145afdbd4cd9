// The GitLab adapter through the real @gitbeaker/rest against the GitLab fake (not schema-checked:
// see test/stand-ins/gitlab-fake.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CodeHost, PullRequestInput } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { GitLabFake } from '../stand-ins/gitlab-fake.ts';
import { assertNoSecrets, decodeBasicHeader, rejectsWith } from './assertions.ts';

const TOKEN = 'glpat-docwrightTestToken_0123456789';
const WRONG_TOKEN = 'glpat-wrongTokenNobodyKnows_9876543';
const PROJECT = 'acme/docs-team/handbook';

describe('GitLab adapter (gitbeaker → GitLab fake)', () => {
  const fake = new GitLabFake({ tokens: [TOKEN], webUrl: 'https://gitlab.example.test' });
  let host: CodeHost;
  let repositoryUrl: string;
  const messages: string[] = [];

  before(async () => {
    await fake.start();
    fake.addProject({ fullPath: PROJECT, defaultBranch: 'develop' });
    repositoryUrl = `${fake.url}/${PROJECT}.git`;
    host = createCodeHost({
      kind: 'gitlab',
      baseUrl: fake.url,
      credentials: { type: 'token', token: TOKEN },
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
  });
  after(async () => {
    await fake.stop();
  });

  const input = (head: string, extra: Partial<PullRequestInput> = {}): PullRequestInput => ({
    repositoryUrl,
    head,
    base: 'develop',
    title: `Update ${head}`,
    body: `Summary for ${head}`,
    draft: false,
    ...extra,
  });

  test('opens a merge request in a nested group; the URL is its web_url', async () => {
    fake.addBranch(PROJECT, 'docwright/intro-1a2b');
    const result = await host.openOrUpdatePullRequest(input('docwright/intro-1a2b'));
    const mrs = fake.mergeRequests(PROJECT);
    assert.equal(mrs.length, 1);
    assert.deepEqual(result, { url: mrs[0]!.web_url, number: 1, reused: false });
    assert.equal(result.url, 'https://gitlab.example.test/acme/docs-team/handbook/-/merge_requests/1');
    assert.equal(mrs[0]!.title, 'Update docwright/intro-1a2b');
    assert.equal(mrs[0]!.description, 'Summary for docwright/intro-1a2b');
    assert.equal(mrs[0]!.targetBranch, 'develop');
    const create = fake.requests.find((r) => r.method === 'POST');
    assert.equal(create?.url, '/api/v4/projects/acme%2Fdocs-team%2Fhandbook/merge_requests');
    assert.equal(create?.headers['private-token'], '[REDACTED]');
  });

  test('opening again for the same branch reuses the merge request and updates it', async () => {
    const result = await host.openOrUpdatePullRequest(
      input('docwright/intro-1a2b', { title: 'Better intro', body: 'New summary' }),
    );
    const mrs = fake.mergeRequests(PROJECT);
    assert.equal(mrs.length, 1, 'no second merge request');
    assert.deepEqual(result, { url: mrs[0]!.web_url, number: 1, reused: true });
    assert.equal(mrs[0]!.title, 'Better intro');
    assert.equal(mrs[0]!.description, 'New summary');
  });

  test('draft: the title is prefixed "Draft: " and GitLab reports a draft; a reuse keeps it a draft', async () => {
    fake.addBranch(PROJECT, 'docwright/draft-3c4d');
    const first = await host.openOrUpdatePullRequest(input('docwright/draft-3c4d', { draft: true }));
    const mr = () => fake.mergeRequests(PROJECT).find((m) => m.iid === first.number)!;
    assert.equal(mr().title, 'Draft: Update docwright/draft-3c4d');
    // Even if the caller no longer asks for a draft, the open merge request keeps its state.
    const again = await host.openOrUpdatePullRequest(
      input('docwright/draft-3c4d', { title: 'Reworded', draft: false }),
    );
    assert.equal(again.reused, true);
    assert.equal(mr().title, 'Draft: Reworded');
  });

  test('a merge request a reviewer marked ready stays ready when reused', async () => {
    fake.addBranch(PROJECT, 'docwright/ready-5e6f');
    const first = await host.openOrUpdatePullRequest(input('docwright/ready-5e6f', { draft: true }));
    const mr = fake.mergeRequests(PROJECT).find((m) => m.iid === first.number)!;
    mr.title = 'Update docwright/ready-5e6f'; // "Mark as ready" in GitLab drops the prefix
    await host.openOrUpdatePullRequest(input('docwright/ready-5e6f', { title: 'Second pass', draft: true }));
    assert.equal(mr.title, 'Second pass');
  });

  test('a duplicate the lookup missed (409 from GitLab) is reused', async () => {
    fake.addBranch(PROJECT, 'docwright/race-7a8b');
    const first = await host.openOrUpdatePullRequest(input('docwright/race-7a8b'));
    fake.fail({ status: 200, method: 'GET', path: /merge_requests$/, body: [] });
    const second = await host.openOrUpdatePullRequest(
      input('docwright/race-7a8b', { title: 'After the race' }),
    );
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
    assert.equal(
      fake.mergeRequests(PROJECT).filter((m) => m.sourceBranch === 'docwright/race-7a8b').length,
      1,
    );
  });

  test('headIsNew: created without a lookup; one that exists all the same is found and reused', async () => {
    fake.addBranch(PROJECT, 'docwright/new-3c4d');
    const seen = fake.requests.length;
    const first = await host.openOrUpdatePullRequest(input('docwright/new-3c4d', { headIsNew: true }));
    assert.deepEqual(
      fake.requests.slice(seen).map((r) => r.method),
      ['POST'],
    );
    assert.equal(first.reused, false);
    const second = await host.openOrUpdatePullRequest(
      input('docwright/new-3c4d', { headIsNew: true, title: 'Said new, was not' }),
    );
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
    const mrs = fake.mergeRequests(PROJECT).filter((m) => m.sourceBranch === 'docwright/new-3c4d');
    assert.deepEqual(
      mrs.map((m) => m.title),
      ['Said new, was not'],
    );
  });

  test('defaultBranch reads the project by its full path', async () => {
    assert.equal(await host.defaultBranch(`${fake.url}/${PROJECT}/-/tree/develop`), 'develop');
  });

  test('gitAuthHeader is Basic oauth2:<token>', async () => {
    assert.deepEqual(decodeBasicHeader(await host.gitAuthHeader()), ['oauth2', TOKEN]);
  });

  test('a bad token fails with code_host_auth and no token in the message', async () => {
    const bad = createCodeHost({
      kind: 'gitlab',
      baseUrl: fake.url,
      credentials: { type: 'token', token: WRONG_TOKEN },
    });
    const error = await rejectsWith(
      bad.openOrUpdatePullRequest(input('docwright/intro-1a2b')),
      'code_host_auth',
      [WRONG_TOKEN, TOKEN],
    );
    assert.equal(error.status, 401);
    assert.match(error.message, /GitLab refused the credentials \(401 Unauthorized\)/);
    messages.push(error.message);
  });

  test("a missing target branch fails with pr_failed and GitLab's reason", async () => {
    fake.addBranch(PROJECT, 'docwright/no-target');
    const error = await rejectsWith(
      host.openOrUpdatePullRequest(input('docwright/no-target', { base: 'nope' })),
      'pr_failed',
      [TOKEN],
    );
    assert.equal(error.status, 422);
    assert.match(error.message, /422 Target branch "nope" does not exist/);
    messages.push(error.message);
  });

  test('an unknown project fails with pr_failed (404)', async () => {
    const error = await rejectsWith(host.defaultBranch(`${fake.url}/acme/missing`), 'pr_failed', [TOKEN]);
    assert.equal(error.status, 404);
    assert.match(error.message, /acme\/missing/);
    messages.push(error.message);
  });

  test('500s are retried by docwright; then it works', async () => {
    fake.fail({ status: 500, method: 'GET', path: /^\/api\/v4\/projects\/[^/]+$/, times: 2 });
    assert.equal(await host.defaultBranch(repositoryUrl), 'develop');
  });

  test('a GitLab under a relative URL: base URL with a path', async () => {
    const sub = new GitLabFake({
      tokens: [TOKEN],
      pathPrefix: '/gitlab',
      webUrl: 'https://example.test/gitlab',
    });
    await sub.start();
    try {
      sub.addProject({ fullPath: 'docs/site', branches: ['docwright/sub'] });
      const subHost = createCodeHost({
        kind: 'gitlab',
        baseUrl: `${sub.url}/gitlab`,
        credentials: { type: 'token', token: TOKEN },
      });
      const result = await subHost.openOrUpdatePullRequest({
        repositoryUrl: `${sub.url}/gitlab/docs/site`,
        head: 'docwright/sub',
        base: 'main',
        title: 'Sub-path',
        body: 'b',
        draft: false,
      });
      assert.equal(result.url, 'https://example.test/gitlab/docs/site/-/merge_requests/1');
      assert.ok(sub.requests.every((r) => r.url.startsWith('/gitlab/api/v4/projects/docs%2Fsite')));
    } finally {
      await sub.stop();
    }
  });

  test('the token appears in no recorded request outside its header and in no message', () => {
    assert.deepEqual(fake.secretLeaks, []);
    assertNoSecrets(fake.recordedText(), [TOKEN, WRONG_TOKEN]);
    assert.ok(messages.length >= 3);
    for (const message of messages) assertNoSecrets(message, [TOKEN, WRONG_TOKEN]);
  });
});

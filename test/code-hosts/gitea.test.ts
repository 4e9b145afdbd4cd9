// The Gitea/Forgejo adapter through the real gitea-js client against the Gitea fake (not
// schema-checked: see test/stand-ins/gitea-fake.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CodeHost, PullRequestInput } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { GiteaFake } from '../stand-ins/gitea-fake.ts';
import { assertNoSecrets, decodeBasicHeader, rejectsWith } from './assertions.ts';

const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const WRONG_TOKEN = 'ffffffffffffffffffffffffffffffff00000000';

describe('Gitea adapter (gitea-js → Gitea fake)', () => {
  const fake = new GiteaFake({ tokens: [TOKEN], webUrl: 'https://gitea.example.test' });
  let host: CodeHost;
  let repositoryUrl: string;
  const messages: string[] = [];

  before(async () => {
    await fake.start();
    fake.addRepo({ owner: 'docs-org', name: 'manual', defaultBranch: 'main' });
    repositoryUrl = `${fake.url}/docs-org/manual.git`;
    host = createCodeHost({
      kind: 'gitea',
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
    base: 'main',
    title: `Update ${head}`,
    body: `Summary for ${head}`,
    draft: false,
    ...extra,
  });

  test('opens a pull request; the URL is its html_url', async () => {
    fake.addBranch('docs-org', 'manual', 'docwright/install-9f8e');
    const result = await host.openOrUpdatePullRequest(input('docwright/install-9f8e'));
    const pulls = fake.pulls('docs-org', 'manual');
    assert.equal(pulls.length, 1);
    assert.deepEqual(result, { url: pulls[0]!.html_url, number: 1, reused: false });
    assert.equal(result.url, 'https://gitea.example.test/docs-org/manual/pulls/1');
    assert.equal(pulls[0]!.body, 'Summary for docwright/install-9f8e');
    const create = fake.requests.find((r) => r.method === 'POST');
    assert.equal(create?.url, '/api/v1/repos/docs-org/manual/pulls');
    assert.equal(create?.headers.authorization, 'Bearer [REDACTED]');
  });

  test('opening again for the same branch reuses the pull request and updates it', async () => {
    const result = await host.openOrUpdatePullRequest(
      input('docwright/install-9f8e', { title: 'Install guide', body: 'v2' }),
    );
    const pulls = fake.pulls('docs-org', 'manual');
    assert.equal(pulls.length, 1, 'no second pull request');
    assert.deepEqual(result, { url: pulls[0]!.html_url, number: 1, reused: true });
    assert.equal(pulls[0]!.title, 'Install guide');
    assert.equal(pulls[0]!.body, 'v2');
  });

  test('the lookup pages through many open pull requests', async () => {
    for (let i = 0; i < 60; i++) {
      fake.addBranch('docs-org', 'manual', `other/${i}`);
      await host.openOrUpdatePullRequest(input(`other/${i}`));
    }
    // docwright/install-9f8e is now the oldest of 61 open pulls: on the second page of 50.
    const result = await host.openOrUpdatePullRequest(
      input('docwright/install-9f8e', { title: 'Install guide, again' }),
    );
    assert.deepEqual(result, { url: fake.pulls('docs-org', 'manual')[0]!.html_url, number: 1, reused: true });
    assert.ok(fake.requests.some((r) => r.url.includes('page=2')));
  });

  test('draft: the title is prefixed "WIP: "; a reuse keeps the work-in-progress state', async () => {
    fake.addBranch('docs-org', 'manual', 'docwright/wip-1234');
    const first = await host.openOrUpdatePullRequest(input('docwright/wip-1234', { draft: true }));
    const pull = () => fake.pulls('docs-org', 'manual').find((p) => p.number === first.number)!;
    assert.equal(pull().title, 'WIP: Update docwright/wip-1234');
    await host.openOrUpdatePullRequest(input('docwright/wip-1234', { title: 'Reworded', draft: false }));
    assert.equal(pull().title, 'WIP: Reworded');
  });

  test('a duplicate the lookup missed (409 from Gitea) is reused', async () => {
    fake.addBranch('docs-org', 'manual', 'docwright/race-4242');
    const first = await host.openOrUpdatePullRequest(input('docwright/race-4242'));
    fake.fail({ status: 200, method: 'GET', path: /\/pulls$/, body: [] });
    const second = await host.openOrUpdatePullRequest(
      input('docwright/race-4242', { title: 'After the race' }),
    );
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
  });

  test('headIsNew: created without a lookup; one that exists all the same is found and reused', async () => {
    fake.addBranch('docs-org', 'manual', 'docwright/new-1a2b');
    const seen = fake.requests.length;
    const first = await host.openOrUpdatePullRequest(input('docwright/new-1a2b', { headIsNew: true }));
    assert.deepEqual(
      fake.requests.slice(seen).map((r) => r.method),
      ['POST'],
    );
    assert.equal(first.reused, false);
    const second = await host.openOrUpdatePullRequest(
      input('docwright/new-1a2b', { headIsNew: true, title: 'Said new, was not' }),
    );
    assert.deepEqual(second, { url: first.url, number: first.number, reused: true });
    const pulls = fake.pulls('docs-org', 'manual').filter((p) => p.head === 'docwright/new-1a2b');
    assert.deepEqual(
      pulls.map((p) => p.title),
      ['Said new, was not'],
    );
  });

  test('defaultBranch and gitAuthHeader', async () => {
    assert.equal(await host.defaultBranch(repositoryUrl), 'main');
    assert.deepEqual(decodeBasicHeader(await host.gitAuthHeader()), [TOKEN, 'x-oauth-basic']);
  });

  test('a bad token fails with code_host_auth and no token in the message', async () => {
    const bad = createCodeHost({
      kind: 'gitea',
      baseUrl: fake.url,
      credentials: { type: 'token', token: WRONG_TOKEN },
    });
    const error = await rejectsWith(
      bad.openOrUpdatePullRequest(input('docwright/install-9f8e')),
      'code_host_auth',
      [WRONG_TOKEN, TOKEN],
    );
    assert.equal(error.status, 401);
    assert.match(error.message, /^Gitea refused the credentials \(401 invalid username, password or token\)/);
    messages.push(error.message);
  });

  test('a missing branch fails with pr_failed', async () => {
    const error = await rejectsWith(
      host.openOrUpdatePullRequest(input('docwright/never-pushed')),
      'pr_failed',
      [TOKEN],
    );
    assert.equal(error.status, 404);
    assert.match(error.message, /from docwright\/never-pushed into main in docs-org\/manual/);
    messages.push(error.message);
  });

  test('503 then success: retried', async () => {
    fake.fail({ status: 503, method: 'GET', path: /\/manual$/, times: 2 });
    assert.equal(await host.defaultBranch(repositoryUrl), 'main');
  });

  test('an unreachable Gitea fails with pr_failed naming the address', async () => {
    const gone = createCodeHost({
      kind: 'gitea',
      baseUrl: 'http://127.0.0.1:9',
      credentials: { type: 'token', token: TOKEN },
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    const error = await rejectsWith(gone.defaultBranch('http://127.0.0.1:9/docs-org/manual'), 'pr_failed', [
      TOKEN,
    ]);
    assert.match(error.message, /Could not reach Gitea at http:\/\/127\.0\.0\.1:9\/api\/v1/);
    messages.push(error.message);
  });

  test('the token appears in no recorded request outside its header and in no message', () => {
    assert.deepEqual(fake.secretLeaks, []);
    assertNoSecrets(fake.recordedText(), [TOKEN, WRONG_TOKEN]);
    assert.ok(messages.length >= 3);
    for (const message of messages) assertNoSecrets(message, [TOKEN, WRONG_TOKEN]);
  });
});

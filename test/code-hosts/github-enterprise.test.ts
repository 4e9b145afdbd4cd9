// GitHub Enterprise Server: given the server's web address, the adapter calls <base>/api/v3. The
// fake serves the API only under /api/v3, and Prism checks it against the GHES description with
// the same prefix, so a client calling the wrong path fails.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { type CheckedGitHub, startCheckedGitHub } from './github-stand.ts';

const TOKEN = 'ghp_enterpriseToken_0123456789abcdefABCDEF';

describe('GitHub Enterprise Server base URL', () => {
  let stand: CheckedGitHub;

  before(async () => {
    stand = await startCheckedGitHub({
      description: 'ghes-3.19',
      apiPrefix: '/api/v3',
      webUrl: 'https://github.example.test',
      tokens: [TOKEN],
    });
    stand.fake.addRepo({
      owner: 'platform',
      name: 'handbook',
      defaultBranch: 'main',
      branches: ['docwright/ghes'],
    });
  });
  after(async () => {
    await stand?.stop();
  });

  test('the base URL is the server; the API is called under /api/v3', async () => {
    // Prism stands where the Enterprise server would: its address is the web address too.
    const server = stand.prism.url;
    const host = createCodeHost({
      kind: 'github',
      baseUrl: server,
      credentials: { type: 'token', token: TOKEN },
    });
    const result = await host.openOrUpdatePullRequest({
      repositoryUrl: `${server}/platform/handbook.git`,
      head: 'docwright/ghes',
      base: 'main',
      title: 'Enterprise change',
      body: 'Body',
      draft: true,
    });
    assert.deepEqual(result, {
      url: 'https://github.example.test/platform/handbook/pull/1',
      number: 1,
      reused: false,
    });
    assert.equal(await host.defaultBranch(`${server}/platform/handbook`), 'main');
    assert.ok(stand.fake.requests.length >= 3);
    for (const request of stand.fake.requests)
      assert.match(request.url, /^\/api\/v3\/repos\/platform\/handbook/);
    assert.deepEqual(await stand.prism.violations(), []);
  });

  test('a base URL that already ends in /api/v3 is not doubled', async () => {
    const host = createCodeHost({
      kind: 'github',
      baseUrl: `${stand.prism.url}/api/v3/`,
      credentials: { type: 'token', token: TOKEN },
    });
    assert.equal(await host.defaultBranch(`${stand.prism.url}/platform/handbook`), 'main');
    assert.deepEqual(await stand.prism.violations(), []);
  });
});

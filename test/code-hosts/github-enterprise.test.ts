// GitHub Enterprise Server: given the server's web address, the adapter calls <base>/api/v3. The
// fake serves the API only under /api/v3, and Prism checks it against the GHES description with
// the same prefix, so a client calling the wrong path fails.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { codeHostOptionsOf } from '../../src/agent/code-host-options.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import type { Project } from '../../src/modules/projects/schemas.ts';
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

describe('GitHub Enterprise with its API on a path of its own (a proxy)', () => {
  let stand: CheckedGitHub;

  before(async () => {
    stand = await startCheckedGitHub({
      description: 'ghes-3.19',
      apiPrefix: '/proxy/github-api',
      webUrl: 'https://github.example.test',
      tokens: [TOKEN],
    });
    stand.fake.addRepo({ owner: 'platform', name: 'handbook', defaultBranch: 'main' });
  });
  after(async () => {
    await stand?.stop();
  });

  const project = (apiUrl: string | null): Project => ({
    id: 'prj_ghes',
    name: 'Handbook',
    repositoryUrl: `${stand.prism.url}/platform/handbook.git`,
    ref: 'main',
    codeHost: { kind: 'github', baseUrl: stand.prism.url, apiUrl },
    model: null,
    settings: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  });

  test("the project's API URL is what the adapter calls, as is", async () => {
    const host = createCodeHost(
      codeHostOptionsOf(project(`${stand.prism.url}/proxy/github-api`), { type: 'token', token: TOKEN }),
    );
    assert.equal(await host.defaultBranch(`${stand.prism.url}/platform/handbook`), 'main');
    assert.ok(stand.fake.requests.length >= 1);
    for (const request of stand.fake.requests) assert.match(request.url, /^\/proxy\/github-api\/repos\//);
    assert.deepEqual(await stand.prism.violations(), []);
  });

  test('without it, the derived /api/v3 misses, and the message names the URL it called', async () => {
    const host = createCodeHost({
      ...codeHostOptionsOf(project(null), { type: 'token', token: TOKEN }),
      retry: { attempts: 1 },
    });
    await assert.rejects(host.defaultBranch(`${stand.prism.url}/platform/handbook`), (error: Error) => {
      assert.match(error.message, new RegExp(`API called: ${stand.prism.url}/api/v3\\)`));
      return true;
    });
  });
});

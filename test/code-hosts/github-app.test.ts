// GitHub App credentials: the adapter signs an RS256 JWT with node:crypto, exchanges it through
// Octokit for an installation token (the fake verifies the signature with the App's public key),
// caches the token until shortly before it expires, and uses it for the API and for git.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import type { CodeHostCredentials } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import { assertNoSecrets, decodeBasicHeader, rejectsWith } from './assertions.ts';
import { type CheckedGitHub, startCheckedGitHub } from './github-stand.ts';

const REPO_URL = 'https://github.com/acme/handbook';
const APP_ID = '424242';
const INSTALLATION_ID = 77;

function rsaPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    // PKCS#1, the "BEGIN RSA PRIVATE KEY" form GitHub hands out.
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

describe('GitHub App installation tokens (Octokit → Prism → GitHub fake)', () => {
  const app = rsaPair();
  const stranger = rsaPair();
  let stand: CheckedGitHub;
  const credentials = (
    overrides: Partial<Extract<CodeHostCredentials, { type: 'github-app' }>> = {},
  ): CodeHostCredentials => ({
    type: 'github-app',
    appId: APP_ID,
    privateKey: app.privateKey,
    installationId: String(INSTALLATION_ID),
    ...overrides,
  });
  const hostWith = (creds: CodeHostCredentials) =>
    createCodeHost({ kind: 'github', apiUrl: stand.apiUrl, credentials: creds, retry: { attempts: 1 } });
  const pullInput = (head: string) => ({
    repositoryUrl: REPO_URL,
    head,
    base: 'main',
    title: `Docs: ${head}`,
    body: 'Opened by a GitHub App',
    draft: false,
  });

  before(async () => {
    stand = await startCheckedGitHub({
      app: { appId: APP_ID, publicKeyPem: app.publicKey, installationId: INSTALLATION_ID },
    });
    stand.fake.addRepo({
      owner: 'acme',
      name: 'handbook',
      branches: ['docwright/a', 'docwright/b', 'docwright/c'],
    });
  });
  after(async () => {
    await stand?.stop();
  });
  afterEach(async () => {
    assert.deepEqual(await stand.prism.violations(), []);
  });

  test('opens a pull request with an installation token, and reuses the token while it is fresh', async () => {
    const host = hostWith(credentials());
    const issuedBefore = stand.fake.installationTokensIssued;
    const first = await host.openOrUpdatePullRequest(pullInput('docwright/a'));
    assert.equal(first.url, stand.fake.pulls('acme', 'handbook')[0]!.html_url);
    assert.equal(stand.fake.installationTokensIssued - issuedBefore, 1);

    await host.openOrUpdatePullRequest(pullInput('docwright/b'));
    assert.equal(await host.defaultBranch(REPO_URL), 'main');
    assert.equal(stand.fake.installationTokensIssued - issuedBefore, 1, 'the cached token served every call');

    const exchange = stand.fake.requests.find((r) =>
      r.url.endsWith(`/app/installations/${INSTALLATION_ID}/access_tokens`),
    );
    assert.equal(exchange?.headers.authorization, 'bearer [REDACTED]', 'the JWT went as a bearer token');
    const apiCall = stand.fake.requests.find((r) => r.method === 'POST' && r.url.endsWith('/pulls'));
    assert.equal(apiCall?.headers.authorization, 'token [REDACTED]');
  });

  test('gitAuthHeader carries the installation token as x-access-token', async () => {
    const host = hostWith(credentials());
    const [user, password] = decodeBasicHeader(await host.gitAuthHeader());
    assert.equal(user, 'x-access-token');
    assert.match(password, /^ghs_/);
    assert.ok(stand.fake.isLiveInstallationToken(password), 'a token the fake issued and still honours');
  });

  test('a token that expires within the renewal margin is not reused', async () => {
    stand.fake.installationTokenLifetimeMs = 60_000; // less than the five minutes kept in reserve
    try {
      const host = hostWith(credentials());
      const issuedBefore = stand.fake.installationTokensIssued;
      await host.defaultBranch(REPO_URL);
      await host.defaultBranch(REPO_URL);
      assert.equal(stand.fake.installationTokensIssued - issuedBefore, 2);
    } finally {
      stand.fake.installationTokenLifetimeMs = 3_600_000;
    }
  });

  test('a JWT signed with another key is refused: code_host_auth, and no key or JWT in the message', async () => {
    stand.fake.echoCredentialsInErrors = true;
    try {
      const error = await rejectsWith(
        hostWith(credentials({ privateKey: stranger.privateKey })).openOrUpdatePullRequest(
          pullInput('docwright/c'),
        ),
        'code_host_auth',
        [stranger.privateKey, app.privateKey],
      );
      assert.equal(error.status, 401);
      assert.match(error.message, /installation 77/);
      // The fake echoed the JWT it got; it must have been scrubbed.
      assert.doesNotMatch(error.message, /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
      assert.match(error.message, /\[REDACTED\]/);
    } finally {
      stand.fake.echoCredentialsInErrors = false;
    }
  });

  test('an unknown installation is a credentials problem (code_host_auth)', async () => {
    const error = await rejectsWith(
      hostWith(credentials({ installationId: '999' })).defaultBranch(REPO_URL),
      'code_host_auth',
      [app.privateKey],
    );
    assert.equal(error.status, 404);
  });

  test('a private key that is not PEM fails clearly without echoing it', async () => {
    const notAKey = 'not-a-pem-secret-value-1234567890';
    const error = await rejectsWith(
      hostWith(credentials({ privateKey: notAKey })).defaultBranch(REPO_URL),
      'code_host_auth',
      [notAKey],
    );
    assert.match(error.message, /private key is not a readable PEM key/);
  });

  test('GitHub App credentials are refused for GitLab and Gitea', () => {
    for (const kind of ['gitlab', 'gitea'] as const) {
      assert.throws(() => createCodeHost({ kind, credentials: credentials() }), { code: 'code_host_auth' });
    }
  });

  test('no installation token or JWT was recorded anywhere but redacted headers', () => {
    assert.deepEqual(stand.fake.secretLeaks, []);
    assertNoSecrets(stand.fake.recordedText(), [app.privateKey]);
    assert.doesNotMatch(stand.fake.recordedText(), /ghs_[0-9a-f]{8}/);
    assert.doesNotMatch(stand.fake.recordedText(), /eyJ[A-Za-z0-9_-]+\.eyJ/);
  });
});

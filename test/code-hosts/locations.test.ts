// Unit tests of the pure parts: repository URLs, API roots, retries and error mapping.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CodeHostError, type CodeHostFailureCode } from '../../src/code-hosts/contract.ts';
import { httpFailure, SecretScrubber } from '../../src/code-hosts/errors.ts';
import { githubApiUrl, locateRepository, rootBelowApi, webBaseOf } from '../../src/code-hosts/locations.ts';
import { withRetries } from '../../src/code-hosts/retry.ts';
import { JOB_FAILURE_CODES } from '../../src/contract/index.ts';

describe('repository URLs', () => {
  test('GitHub and Gitea: owner/name, with or without .git and a trailing slash', () => {
    for (const url of [
      'https://github.com/acme/docs',
      'https://github.com/acme/docs.git',
      'https://github.com/acme/docs/',
    ]) {
      assert.deepEqual(locateRepository('github', url, null), {
        webBase: 'https://github.com',
        segments: ['acme', 'docs'],
      });
    }
    assert.deepEqual(locateRepository('gitea', 'https://codeberg.org/forgejo/docs.git', null).segments, [
      'forgejo',
      'docs',
    ]);
  });

  test('GitLab: the full namespace path, nested groups, and web paths after /-/', () => {
    assert.deepEqual(locateRepository('gitlab', 'https://gitlab.com/a/b/c/handbook.git', null).segments, [
      'a',
      'b',
      'c',
      'handbook',
    ]);
    assert.deepEqual(locateRepository('gitlab', 'https://gitlab.com/a/handbook/-/tree/main', null).segments, [
      'a',
      'handbook',
    ]);
  });

  test('a host under a path: the base URL path is not part of the repository', () => {
    const location = locateRepository(
      'gitlab',
      'https://example.com/gitlab/team/docs',
      'https://example.com/gitlab/',
    );
    assert.deepEqual(location, { webBase: 'https://example.com/gitlab', segments: ['team', 'docs'] });
  });

  test('URLs that name no repository are refused with pr_failed, without credentials in the message', () => {
    for (const [kind, url] of [
      ['github', 'https://github.com/acme'],
      ['github', 'https://github.com/acme/docs/extra'],
      ['gitlab', 'https://gitlab.com/only-group'],
      ['gitea', 'ftp://gitea.example/a/b'],
      ['github', 'not a url'],
    ] as const) {
      assert.throws(() => locateRepository(kind, url, null), { name: 'CodeHostError', code: 'pr_failed' });
    }
    assert.throws(
      () => locateRepository('github', 'https://user:s3cretpass@github.com/acme', null),
      (error: Error) => !error.message.includes('s3cretpass'),
    );
  });

  test('any owner/name pair survives encoding in the URL', () => {
    const segment = fc
      .stringMatching(/^[A-Za-z0-9._-]{1,20}$/)
      .filter((s) => s !== '.' && s !== '..' && !s.endsWith('.git'));
    fc.assert(
      fc.property(segment, segment, (owner, name) => {
        const url = `https://gitea.example.com/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
        assert.deepEqual(locateRepository('gitea', url, null).segments, [owner, name]);
      }),
    );
  });
});

describe('API roots', () => {
  test('GitHub: api.github.com, Enterprise Server /api/v3, GHE.com data residency', () => {
    assert.equal(githubApiUrl('https://github.com'), 'https://api.github.com');
    assert.equal(githubApiUrl('https://ghe.corp.example'), 'https://ghe.corp.example/api/v3');
    assert.equal(githubApiUrl('https://ghe.corp.example/'), 'https://ghe.corp.example/api/v3');
    assert.equal(githubApiUrl('https://octocorp.ghe.com'), 'https://api.octocorp.ghe.com');
    assert.equal(
      githubApiUrl(webBaseOf('github', 'https://ghe.corp.example/api/v3/')),
      'https://ghe.corp.example/api/v3',
    );
  });

  test('GitLab and Gitea: the web address, with an API path stripped when given', () => {
    assert.equal(webBaseOf('gitlab', 'https://gitlab.example.com/api/v4'), 'https://gitlab.example.com');
    assert.equal(
      webBaseOf('gitea', 'https://gitea.example.com/sub/api/v1/'),
      'https://gitea.example.com/sub',
    );
    assert.equal(rootBelowApi('gitea', 'http://127.0.0.1:3000/api/v1'), 'http://127.0.0.1:3000');
    assert.throws(() => rootBelowApi('gitlab', 'http://127.0.0.1:3000/'), { code: 'pr_failed' });
  });
});

describe('errors and retries', () => {
  test('every code a code host fails with is a documented job failure code', () => {
    const codes: CodeHostFailureCode[] = ['code_host_auth', 'pr_failed'];
    for (const code of codes) assert.ok(code in JOB_FAILURE_CODES, code);
  });

  test('401 and 403 are the credentials; other statuses fail the pull request; 429 and 5xx retry', () => {
    const of = (status: number) => httpFailure({ host: 'X', action: 'do it', status });
    assert.equal(of(401).code, 'code_host_auth');
    assert.equal(of(403).code, 'code_host_auth');
    for (const status of [400, 404, 409, 422, 500, 502, 503]) assert.equal(of(status).code, 'pr_failed');
    for (const status of [429, 500, 502, 503, 504]) assert.equal(of(status).retryable, true, String(status));
    for (const status of [400, 401, 403, 404, 422]) assert.equal(of(status).retryable, false, String(status));
  });

  test('the scrubber removes a secret and its URL-encoded form, longest first', () => {
    const scrubber = new SecretScrubber();
    scrubber.add('abcd/def+ghi');
    scrubber.add('abcd');
    assert.equal(
      scrubber.scrub('x abcd/def+ghi y abcd%2Fdef%2Bghi z abcd'),
      'x [REDACTED] y [REDACTED] z [REDACTED]',
    );
  });

  test('withRetries retries retryable failures up to the limit and honours Retry-After up to the cap', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(
        new CodeHostError('pr_failed', 'busy', { status: 503, retryable: true, retryAfterSeconds: 0 }),
      );
    };
    await assert.rejects(withRetries({ attempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, undefined, failing), {
      message: 'busy',
    });
    assert.equal(calls, 3);

    calls = 0;
    const refused = () => {
      calls++;
      return Promise.reject(new CodeHostError('code_host_auth', 'no', { status: 401 }));
    };
    await assert.rejects(withRetries({ attempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, undefined, refused));
    assert.equal(calls, 1, 'an auth failure is not retried');

    calls = 0;
    const flaky = () => (++calls < 3 ? failing() : Promise.resolve('ok'));
    assert.equal(await withRetries({ attempts: 5, baseDelayMs: 1, maxDelayMs: 2 }, undefined, flaky), 'ok');
  });

  test('an aborted signal stops the retries', async () => {
    const controller = new AbortController();
    let calls = 0;
    const failing = () => {
      calls++;
      controller.abort();
      return Promise.reject(new CodeHostError('pr_failed', 'busy', { status: 503, retryable: true }));
    };
    await assert.rejects(
      withRetries({ attempts: 5, baseDelayMs: 1, maxDelayMs: 2 }, controller.signal, failing),
    );
    assert.equal(calls, 1);
  });
});

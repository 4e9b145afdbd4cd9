// The workspace's small parts on their own: branch names (checked by git itself), how git's
// messages are classified, the scrubber, the environment git runs in, and the mirror lock within
// a process and across processes.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { branchName, shortJobId, slugify } from '../../src/agent/workspace/branch-name.ts';
import {
  classifyGitError,
  gitFailure,
  WORKSPACE_FAILURE_CODES,
  WorkspaceFailure,
} from '../../src/agent/workspace/failures.ts';
import { buildGitEnv } from '../../src/agent/workspace/git-env.ts';
import { GitRunner } from '../../src/agent/workspace/git-runner.ts';
import { cleanCommitMessage } from '../../src/agent/workspace/job-workspace.ts';
import { MirrorLockTimeout, withMirrorLock } from '../../src/agent/workspace/mirror-lock.ts';
import { receivePackRequest, reportSaysPushed } from '../../src/agent/workspace/push-request.ts';
import { canProbe, lsRefsRequest, parseLsRefs } from '../../src/agent/workspace/remote-refs.ts';
import { checkRefName, checkRepositoryUrl } from '../../src/agent/workspace/repository-url.ts';
import { createScrubber, secretsOfAuthorization } from '../../src/agent/workspace/scrub.ts';
import { moveToTrash, sweepTrash } from '../../src/agent/workspace/trash.ts';
import { JOB_FAILURE_CODES } from '../../src/contract/index.ts';
import { newId } from '../../src/util/random.ts';

const run = promisify(execFile);
let base: string;
before(async () => {
  base = await mkdtemp('/dev/shm/docwright-units-');
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** git's own verdict on a branch name. */
async function gitAcceptsBranch(name: string): Promise<boolean> {
  try {
    await run('git', ['check-ref-format', `refs/heads/${name}`]);
    return true;
  } catch {
    return false;
  }
}

describe('branch names', () => {
  test('docwright/<slug of the first words>-<short id>, lowercase ASCII', () => {
    assert.equal(
      branchName('Fix the install guide', 'job_3xK9abQ7zzzzzzzz'),
      'docwright/fix-the-install-guide-3xk9abq7',
    );
    assert.equal(
      branchName('Document the new `--dry-run` flag in docs/cli.md, with examples!', 'job_AbCdEfGh12345678'),
      'docwright/document-the-new-dry-run-flag-in-docs-abcdefgh',
    );
    assert.equal(branchName('Überarbeite die Café-Seite', 'job_x'), 'docwright/uberarbeite-die-cafe-seite-x');
    assert.equal(branchName('日本語のドキュメント', 'job_Q1w2E3r4T5y6U7i8'), 'docwright/change-q1w2e3r4');
    assert.equal(slugify('a'.repeat(60)), 'a'.repeat(40));
    assert.equal(shortJobId('job_'), 'job');
  });

  test('any prompt and job id give a valid, bounded ref (git check-ref-format agrees)', async () => {
    const samples = fc.sample(
      fc.tuple(
        fc.string({ maxLength: 200 }),
        fc.constantFrom(...Array.from({ length: 20 }, () => newId('job'))),
      ),
      60,
    );
    samples.push(['..lock/.hidden//x@{y}~^:?*[\\', 'job_abc'], ['-', 'job_-'], ['', 'job_ABC']);
    for (const [prompt, jobId] of samples) {
      const name = branchName(prompt, jobId);
      assert.match(name, /^docwright\/[a-z0-9]+(-[a-z0-9]+)*$/, name);
      assert.ok(name.length <= 'docwright/'.length + 40 + 1 + 8, name);
      assert.ok(await gitAcceptsBranch(name), `git refuses ${name}`);
    }
  });

  test('checkRefName lets real refs through and stops options and odd names', () => {
    for (const ok of ['main', 'release/2.x', 'v1.2.3', 'docwright/fix-abc12345', 'a'.repeat(40)])
      assert.equal(checkRefName(ok), ok);
    for (const bad of [
      '-x',
      '--upload-pack=sh',
      'a..b',
      'a b',
      'x.lock',
      '.hidden',
      'a//b',
      '/a',
      'a/',
      '',
      'a:b',
      'a~1',
    ])
      assert.throws(() => checkRefName(bad), WorkspaceFailure, bad);
  });

  test('checkRepositoryUrl accepts http(s) without credentials only', () => {
    assert.equal(checkRepositoryUrl('https://github.com/acme/docs.git'), 'https://github.com/acme/docs.git');
    for (const bad of [
      'ext::sh -c x',
      'file:///etc',
      'ssh://git@github.com/a/b',
      'https://user:pw@github.com/a/b',
      'https://tok@h/a',
    ])
      assert.throws(
        () => checkRepositoryUrl(bad),
        (error: WorkspaceFailure) => error.kind === 'invalid_repository_url',
      );
  });
});

describe('failures', () => {
  test('every workspace failure code is a job failure code', () => {
    for (const code of Object.keys(WORKSPACE_FAILURE_CODES)) assert.ok(code in JOB_FAILURE_CODES, code);
  });

  test("git's messages are classified by what happened", () => {
    const cases: Array<[string, string]> = [
      ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", 'auth'],
      [
        "remote: Permission to acme/docs.git denied to bot.\nfatal: unable to access 'https://github.com/acme/docs.git/': The requested URL returned error: 403",
        'auth',
      ],
      ['remote: HTTP Basic: Access denied\nfatal: Authentication failed for', 'auth'],
      [
        ' ! [remote rejected] HEAD -> main (protected branch hook declined)\nerror: failed to push some refs to',
        'push_rejected',
      ],
      [' ! [rejected]        HEAD -> docwright/x (non-fast-forward)', 'push_rejected'],
      [' ! [rejected]        HEAD -> docwright/x (fetch first)', 'push_rejected'],
      [
        "remote: Repository not found.\nfatal: repository 'https://github.com/acme/nope.git/' not found",
        'not_found',
      ],
      [
        "fatal: unable to access 'https://gitlab.example/': Could not resolve host: gitlab.example",
        'network',
      ],
      [
        "fatal: unable to access 'https://h/': Failed to connect to h port 443 after 1 ms: Couldn't connect to server",
        'network',
      ],
      ["fatal: unable to access 'https://h/': The requested URL returned error: 502", 'network'],
      ['error: RPC failed; curl 92 HTTP/2 stream 0 was not closed cleanly\nfatal: early EOF', 'network'],
      ["fatal: couldn't find remote ref release-9", 'ref_not_found'],
      ['fatal: invalid reference: main', 'git_failed'],
    ];
    for (const [stderr, kind] of cases) assert.equal(classifyGitError(stderr), kind, stderr);
  });

  test('a failure message keeps the telling lines and drops progress noise', () => {
    const failure = gitFailure(
      'pushing the branch',
      "Enumerating objects: 5, done.\nCounting objects: 100% (5/5), done.\nremote: protected branch\n ! [remote rejected] HEAD -> main (pre-receive hook declined)\nerror: failed to push some refs to 'https://h/docs.git'\n",
    );
    assert.equal(failure.code, 'push_rejected');
    assert.equal(
      failure.message,
      "The code host rejected the push (pushing the branch): remote: protected branch | ! [remote rejected] HEAD -> main (pre-receive hook declined) | error: failed to push some refs to 'https://h/docs.git'",
    );
  });
});

describe('scrubbing the credential', () => {
  test('removes the header, its credential, and the token inside a Basic value', () => {
    const token = 'ghs_abcdefghijklmnop1234';
    const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
    const secrets = secretsOfAuthorization(basic);
    assert.ok(secrets.includes(token));
    const scrub = createScrubber(secrets);
    const text = `header ${basic}; base64 ${basic.slice(6)}; raw ${token}; pair x-access-token:${token}`;
    const clean = scrub(text);
    assert.ok(!clean.includes(token) && !clean.includes(basic.slice(6)), clean);
    assert.equal(scrub('nothing secret here'), 'nothing secret here');
    const bearer = createScrubber([
      ...secretsOfAuthorization('Bearer glpat-0123456789abcdef'),
      'extra-secret-value',
    ]);
    assert.equal(
      bearer('got glpat-0123456789abcdef and extra-secret-value'),
      'got [redacted] and [redacted]',
    );
    // A token nobody told the scrubber about, in an Authorization-like shape, is masked too.
    assert.doesNotMatch(
      createScrubber([])('Authorization: Bearer unknownTokenValue123'),
      /unknownTokenValue123/,
    );
  });
});

describe('the environment git runs in', () => {
  test('built from nothing: host variables that could redirect git or print the token stay out', () => {
    const env = buildGitEnv(
      { authorization: 'Bearer tok_123456789' },
      {
        PATH: '/usr/bin',
        HOME: '/root',
        GIT_DIR: '/elsewhere',
        GIT_TRACE_CURL: '1',
        GIT_ASKPASS: '/bin/echo',
        GIT_SSL_CAINFO: '/etc/ssl/ca.pem',
        https_proxy: 'http://proxy:3128',
      },
    );
    assert.equal(env.PATH, '/usr/bin');
    assert.equal(env.GIT_SSL_CAINFO, '/etc/ssl/ca.pem');
    assert.equal(env.https_proxy, 'http://proxy:3128');
    for (const name of ['GIT_DIR', 'GIT_TRACE_CURL', 'GIT_ASKPASS']) assert.equal(env[name], undefined, name);
    assert.equal(env.HOME, '/dev/null');
    assert.equal(env.GIT_CONFIG_GLOBAL, '/dev/null');
    assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
    assert.equal(env.GIT_TERMINAL_PROMPT, '0');
    assert.equal(env.GIT_ALLOW_PROTOCOL, 'http:https');
    const pairs = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    assert.deepEqual(
      pairs.find(([key]) => key === 'core.hooksPath'),
      ['core.hooksPath', '/dev/null'],
    );
    assert.deepEqual(
      pairs.find(([key]) => key === 'http.extraHeader'),
      ['http.extraHeader', 'Authorization: Bearer tok_123456789'],
    );
    const anonymous = buildGitEnv({}, { PATH: '/usr/bin' });
    assert.ok(!Object.values(anonymous).some((value) => value.includes('Authorization')));
  });

  test('git itself sees the settings: hooks path, no global config, the header only from the environment', async () => {
    const env = buildGitEnv({ authorization: 'Bearer tok_abcdefghij' });
    const runner = new GitRunner();
    const shown = await runner.run(['config', '--show-origin', '--get-all', 'core.hooksPath'], {
      cwd: base,
      env,
    });
    assert.equal(shown.stdout.trim(), 'command line:\t/dev/null');
    const header = await runner.run(['config', '--show-origin', '--get', 'http.extraHeader'], {
      cwd: base,
      env,
    });
    assert.equal(header.stdout.trim(), 'command line:\tAuthorization: Bearer tok_abcdefghij');
  });

  test('the runner passes arguments as they are (no shell) and can stop a long output', async () => {
    const runner = new GitRunner();
    const env = buildGitEnv();
    const echoed = await runner.run(['rev-parse', '--sq-quote', '$(touch x); `id`', "'quoted'"], {
      cwd: base,
      env,
    });
    assert.match(echoed.stdout, /\$\(touch x\); `id`/);
    await assert.rejects(stat(join(base, 'x')), { code: 'ENOENT' });
    const cut = await runner.run(['help', '--all'], { cwd: base, env, maxStdoutBytes: 100 });
    assert.equal(cut.truncated, true);
    assert.equal(cut.exitCode, 0);
    assert.equal(Buffer.byteLength(cut.stdout), 100);
  });
});

describe('trash', () => {
  test('a worktree moves to a trash name at once; sweeping deletes what is left', async () => {
    const dir = join(base, 'trash-test');
    await mkdir(join(dir, 'job_1', 'docs'), { recursive: true });
    await writeFile(join(dir, 'job_1', 'docs', 'a.md'), 'a');
    const trash = await moveToTrash(join(dir, 'job_1'));
    assert.ok(trash?.startsWith(join(dir, '.trash-job_1-')));
    assert.equal(await moveToTrash(join(dir, 'job_1')), null);
    await mkdir(join(dir, 'job_2'));
    await sweepTrash(dir);
    assert.deepEqual(await readdir(dir), ['job_2']);
    await sweepTrash(join(dir, 'missing'));
  });
});

describe('the mirror lock', () => {
  test('one holder at a time within a process, and the lockfile is gone afterwards', async () => {
    const lock = join(base, 'a.lock');
    let holders = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withMirrorLock(lock, async () => {
          holders++;
          most = Math.max(most, holders);
          await sleep(5);
          order.push(i);
          holders--;
        }),
      ),
    );
    assert.equal(most, 1);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
    await assert.rejects(stat(lock), { code: 'ENOENT' });
  });

  test('a failing holder releases the lock for the next', async () => {
    const lock = join(base, 'b.lock');
    await assert.rejects(
      withMirrorLock(lock, async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await withMirrorLock(lock, async () => 'next'), 'next');
  });

  test('waits for a live process that holds the lockfile, and takes one a dead process left', async () => {
    const lock = join(base, 'c.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(lock, `${hostname()} ${holder.pid}\n`);
      await assert.rejects(
        withMirrorLock(lock, async () => 'never', { timeoutMs: 150 }),
        (error: Error) => {
          assert.ok(error instanceof MirrorLockTimeout);
          assert.match(error.message, new RegExp(`held by ${hostname()} ${holder.pid}`));
          return true;
        },
      );
      assert.equal(
        await readFile(lock, 'utf8'),
        `${hostname()} ${holder.pid}\n`,
        'a live holder lost its lock',
      );
      // The holder releases it: the waiter gets it.
      const waiting = withMirrorLock(lock, async () => 'got it', { timeoutMs: 30_000 });
      await sleep(50);
      await rm(lock);
      assert.equal(await waiting, 'got it');
      // The holder dies with the lockfile in place: it is taken over.
      await writeFile(lock, `${hostname()} ${holder.pid}\n`);
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      assert.equal(await withMirrorLock(lock, async () => 'taken over', { timeoutMs: 30_000 }), 'taken over');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('commit messages are cleaned as git commit --cleanup=strip cleans them', () => {
  test('comment lines, trailing spaces, repeated and outer empty lines go; the rest stays', () => {
    assert.equal(
      cleanCommitMessage('\n\n  \nTitle  \n\n\n# a comment\nBody line\t\n \nLast #not a comment\n\n'),
      'Title\n\nBody line\n\nLast #not a comment',
    );
    assert.equal(cleanCommitMessage('Fix typo\r\n\r\nIn the guide.\r\n'), 'Fix typo\n\nIn the guide.');
    assert.equal(cleanCommitMessage('# only a comment\n\n'), '');
    assert.equal(cleanCommitMessage('  indented title'), '  indented title');
  });

  test('the same text as git stripspace --strip-comments, for any message', () => {
    const piece = fc.constantFrom('#', ' ', '\t', '\n', '\r\n', 'a', 'Title', '# x', 'é');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const message = pieces.join('');
        const git = spawnSync('git', ['stripspace', '--strip-comments'], {
          input: message,
          encoding: 'utf8',
        });
        assert.equal(cleanCommitMessage(message), git.stdout.replace(/\n$/, ''), JSON.stringify(message));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the ls-refs probe (remote-refs.ts)', () => {
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;

  test('the request names each ref as a prefix, after the command and a delimiter', () => {
    assert.equal(
      lsRefsRequest(['HEAD', 'refs/heads/main']),
      '0014command=ls-refs\n00010014ref-prefix HEAD\n001fref-prefix refs/heads/main\n0000',
    );
  });

  test('a listing is read to its flush packet; anything else is no answer', () => {
    const listing = `${pkt(`${A} HEAD symref-target:refs/heads/main\n`)}${pkt(`${B} refs/heads/main\n`)}0000`;
    assert.deepEqual(
      parseLsRefs(listing),
      new Map([
        ['HEAD', A],
        ['refs/heads/main', B],
      ]),
    );
    assert.deepEqual(parseLsRefs('0000'), new Map());
    for (const bad of [
      '',
      listing.slice(0, -4), // no flush
      `${listing}0000`, // trailing bytes
      `${pkt('ERR upload-pack: not our ref\n')}0000`,
      `${pkt(`${A.slice(1)} refs/heads/main\n`)}0000`,
      '<html>Sign in</html>',
      'zzzz',
    ])
      assert.equal(parseLsRefs(bad), null, JSON.stringify(bad));
  });

  test('not used behind a proxy git would use', () => {
    assert.equal(canProbe({}), true);
    assert.equal(canProbe({ GIT_SSL_CAINFO: '/etc/ca.pem' }), true);
    assert.equal(canProbe({ https_proxy: 'http://proxy:3128' }), false);
    assert.equal(canProbe({ ALL_PROXY: 'socks5://proxy' }), false);
  });
});

describe('the push by one request (push-request.ts)', () => {
  const C = 'c'.repeat(40);
  const REF = 'refs/heads/docwright/x-1';
  const pkt = (line: string) => (line.length + 4).toString(16).padStart(4, '0') + line;

  test('the request: one command creating the ref (old value: the zero id), a flush packet, the pack', () => {
    const pack = Buffer.from('PACK\0\0\0\x02binary');
    const body = receivePackRequest(REF, C, pack);
    const command = `${'0'.repeat(40)} ${C} ${REF}\0report-status agent=git/docwright\n`;
    assert.deepEqual(body, Buffer.concat([Buffer.from(`${pkt(command)}0000`, 'latin1'), pack]));
  });

  test('only "unpack ok" and "ok <ref>" say pushed; a refusal or anything else does not', () => {
    assert.equal(reportSaysPushed(`${pkt('unpack ok\n')}${pkt(`ok ${REF}\n`)}0000`, REF), true);
    for (const other of [
      `${pkt('unpack ok\n')}${pkt(`ng ${REF} pre-receive hook declined\n`)}0000`,
      `${pkt('unpack ok\n')}${pkt(`ng ${REF} failed to update ref\n`)}0000`,
      `${pkt('unpack index-pack abnormal exit\n')}${pkt(`ng ${REF} unpacker error\n`)}0000`,
      `${pkt('unpack ok\n')}${pkt('ok refs/heads/other\n')}0000`,
      `${pkt('unpack ok\n')}${pkt(`ok ${REF}\n`)}`, // no flush
      `${pkt('unpack ok\n')}${pkt(`ok ${REF}\n`)}0000${pkt('more\n')}`,
      '<html>Sign in</html>',
      '',
    ])
      assert.equal(reportSaysPushed(other, REF), false, JSON.stringify(other));
  });
});

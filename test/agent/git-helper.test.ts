// The git helper process (src/agent/workspace/git-helper-client.ts, git-spawn-helper.ts): the same
// answers as starting git directly, output cut at the byte limit, cancel kills the command, start
// failures reported like spawn's, many commands at once, a helper that dies, no helper at all
// (commands run directly), and a process that used it still exits on its own.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildGitEnv } from '../../src/agent/workspace/git-env.ts';
import { GitHelperClient } from '../../src/agent/workspace/git-helper-client.ts';
import { GitRunner } from '../../src/agent/workspace/git-runner.ts';
import { createCheckout } from '../stand-ins/git-http-server.ts';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('git helper process', () => {
  let dir: string;
  let repo: string;
  const helper = new GitHelperClient();
  const viaHelper = new GitRunner({ helper });
  const direct = new GitRunner({ start: 'direct' });
  const env = buildGitEnv();

  before(async () => {
    dir = await mkdtemp('/dev/shm/docwright-git-helper-');
    repo = await createCheckout(join(dir, 'repo'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('answers as git started directly: output, errors, exit codes', async () => {
    for (const args of [
      ['log', '--format=%H %s', '-1'],
      ['ls-files', '-z'],
      ['rev-parse', '--verify', '--quiet', 'refs/heads/none'],
      ['cat-file', '-p', 'HEAD:nope.md'],
      ['config', '--get', 'core.hooksPath'],
    ]) {
      const [a, b] = await Promise.all([
        viaHelper.run(args, { cwd: repo, env }),
        direct.run(args, { cwd: repo, env }),
      ]);
      assert.deepEqual(a, b, args.join(' '));
    }
    const failed = await viaHelper.run(['cat-file', '-p', 'HEAD:nope.md'], { cwd: repo, env });
    assert.notEqual(failed.exitCode, 0);
    assert.match(failed.stderr, /nope\.md/);
    assert.ok(helper.pid !== undefined, 'the helper ran it');
  });

  test('the environment given is the one the command sees', async () => {
    const runner = new GitRunner({ helper, binary: '/usr/bin/env' });
    const result = await runner.run([], { cwd: repo, env: { PATH: '/usr/bin:/bin', MARKER: 'x1' } });
    assert.deepEqual(result.stdout.trim().split('\n').sort(), ['MARKER=x1', 'PATH=/usr/bin:/bin']);
  });

  test('a long output is cut at exactly the byte limit', async () => {
    const cut = await viaHelper.run(['help', '--all'], { cwd: repo, env, maxStdoutBytes: 100 });
    assert.equal(cut.truncated, true);
    assert.equal(cut.exitCode, 0);
    assert.equal(Buffer.byteLength(cut.stdout), 100);
  });

  test('cancel rejects with AbortError and kills the running command', async () => {
    const pidFile = join(dir, 'sleep.pid');
    const runner = new GitRunner({ helper, binary: '/bin/sh' });
    const controller = new AbortController();
    const running = runner.run(['-c', `echo $$ > ${pidFile}; exec sleep 30`], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      signal: controller.signal,
    });
    let pid = 0;
    await eventually('the command to start', async () => {
      pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
      return pid > 0;
    });
    controller.abort(new Error('job cancelled'));
    await assert.rejects(running, { name: 'AbortError' });
    await eventually('the command to be killed', () => !isAlive(pid));
    // An already cancelled command does not start at all.
    await assert.rejects(viaHelper.run(['status'], { cwd: repo, env, signal: controller.signal }), {
      name: 'AbortError',
    });
  });

  test('a program or directory that cannot be started fails as spawn does (ENOENT)', async () => {
    await assert.rejects(
      new GitRunner({ helper, binary: '/nonexistent/git' }).run(['status'], { cwd: repo, env }),
      {
        code: 'ENOENT',
      },
    );
    await assert.rejects(viaHelper.run(['status'], { cwd: join(dir, 'missing'), env }), { code: 'ENOENT' });
  });

  test('many commands at once each get their own answer', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        viaHelper.run(['rev-parse', '--sq-quote', `arg-${i}`], { cwd: repo, env }),
      ),
    );
    for (const [i, result] of results.entries()) assert.equal(result.stdout.trim(), `'arg-${i}'`);
  });

  test('a helper that dies fails the commands it was running; the next command starts a new one', async () => {
    const runner = new GitRunner({ helper, binary: '/bin/sh' });
    const running = runner.run(['-c', 'sleep 30'], { cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    await eventually('the helper to run it', () => helper.pid !== undefined);
    const first = helper.pid!;
    await new Promise((r) => setTimeout(r, 100));
    process.kill(first, 'SIGKILL');
    await assert.rejects(running, /helper process stopped/);
    const after = await viaHelper.run(['rev-parse', '--is-inside-work-tree'], { cwd: repo, env });
    assert.equal(after.stdout.trim(), 'true');
    assert.notEqual(helper.pid, first);
  });

  test('without a helper (it cannot start), commands run directly', async () => {
    const broken = new GitHelperClient({ execPath: '/nonexistent/node' });
    const runner = new GitRunner({ helper: broken });
    const result = await runner.run(['rev-parse', '--is-inside-work-tree'], { cwd: repo, env });
    assert.equal(result.stdout.trim(), 'true');
    const again = await runner.run(['rev-parse', '--show-toplevel'], { cwd: repo, env });
    assert.equal(again.stdout.trim(), repo);
  });

  test('a process that used the helper exits by itself when it has nothing left to do', async () => {
    const runnerModule = fileURLToPath(new URL('../../src/agent/workspace/git-runner.ts', import.meta.url));
    const script = `import { GitRunner } from ${JSON.stringify(runnerModule)};
const r = await new GitRunner().run(['--version'], { cwd: '/', env: { PATH: process.env.PATH } });
console.log(r.stdout.trim());`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    assert.equal(signal, null, 'it was not killed for hanging');
    assert.equal(code, 0);
    assert.match(out, /^git version/);
  });
});

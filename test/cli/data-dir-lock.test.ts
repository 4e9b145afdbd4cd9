// The data directory's lock under contention: of many processes trying at once, exactly one holds
// it, whether the directory is free or holds a stale lock left by a process that died.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lockFilePath } from '../../src/db/data-dir-lock.ts';
import { tempDataDir } from './cli-process.ts';

const LOCK_MODULE = fileURLToPath(new URL('../../src/db/data-dir-lock.ts', import.meta.url));

// Each contender tries to lock and holds what it got long enough (5 s) for the others to try too,
// even when a loaded machine starts them far apart.
const CONTENDER = `
import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
import { mkdirSync } from 'node:fs';
const dir = process.argv[1];
mkdirSync(dir, { recursive: true });
let lock = null;
try { lock = acquireDataDirLock(dir, 'probe'); } catch {}
console.log(lock ? 'HELD' : 'REFUSED');
setTimeout(() => lock?.release(), 5000);
`;

function contend(dir: string): Promise<string> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  return new Promise((resolve) => child.once('close', () => resolve(out.trim())));
}

test('of six processes locking one data directory at once, exactly one holds it', async () => {
  const dir = tempDataDir();
  try {
    const results = await Promise.all(Array.from({ length: 6 }, () => contend(dir)));
    assert.equal(results.filter((r) => r.startsWith('HELD')).length, 1, results.join('\n'));
    assert.equal(results.filter((r) => r.startsWith('REFUSED')).length, 5, results.join('\n'));
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

// A long-lived contender for many rounds: on "go <time>" it spins until that moment (so all of
// them try within the same instant), tries to lock, and answers HELD or REFUSED; on "release" it
// lets go of what it holds and answers DONE.
const ROUND_CONTENDER = `
import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
import { createInterface } from 'node:readline';
const dir = process.argv[1];
let lock = null;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, at] = line.split(' ');
  if (command === 'go') {
    while (Date.now() < Number(at)) {}
    try { lock = acquireDataDirLock(dir, 'probe'); } catch { lock = null; }
    console.log(lock ? 'HELD' : 'REFUSED');
  } else if (command === 'release') {
    lock?.release();
    lock = null;
    console.log('DONE');
  }
}
`;

interface Contender {
  child: ChildProcess;
  ask(line: string): Promise<string>;
}

function startRoundContender(dir: string): Contender {
  const child = spawn(process.execPath, ['--input-type=module', '-e', ROUND_CONTENDER, dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => answers.shift()?.(line));
  return {
    child,
    ask(line) {
      return new Promise((resolve) => {
        answers.push(resolve);
        child.stdin!.write(`${line}\n`);
      });
    },
  };
}

/** A process id that belonged to a process which has exited: what a crash leaves in the lockfile. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(result.stdout);
}

test('of six processes taking over a stale lock at the same instant, exactly one holds it, round after round', async () => {
  const dir = tempDataDir();
  mkdirSync(dir, { recursive: true });
  const contenders = Array.from({ length: 6 }, () => startRoundContender(dir));
  const stale = {
    pid: deadPid(),
    hostname: hostname(),
    command: 'serve',
    startedAt: new Date(0).toISOString(),
  };
  try {
    // Make sure every contender has loaded the module before the first round.
    await Promise.all(contenders.map((c) => c.ask('release')));
    for (let round = 0; round < 200; round++) {
      writeFileSync(
        lockFilePath(dir),
        JSON.stringify({ ...stale, startedAt: new Date(round).toISOString() }),
      );
      const at = Date.now() + 50;
      const results = await Promise.all(contenders.map((c) => c.ask(`go ${at}`)));
      assert.equal(results.filter((r) => r === 'HELD').length, 1, `round ${round}: ${results.join(' ')}`);
      await Promise.all(contenders.map((c) => c.ask('release')));
      // The lock is gone with its holder, and so is every takeover's trace.
      assert.deepEqual(readdirSync(dir), [], `round ${round}`);
    }
  } finally {
    for (const c of contenders) c.child.kill();
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

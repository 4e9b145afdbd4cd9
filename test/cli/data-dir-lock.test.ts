// The data directory's lock under contention: of many processes trying at once, exactly one holds it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
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

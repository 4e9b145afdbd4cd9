// docwright/client as a project that installed docwright gets it: Node does not strip types from
// files under node_modules, so the package maps docwright/client to JavaScript built by
// tsconfig.client.json. Built here into a copy of the package inside a scratch project's
// node_modules (with docwright's dependencies beside it, as npm would put them), then imported by
// Node by its package name, and type-checked from a TypeScript file of that project.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let project: string;
let installed: string;

before(() => {
  project = mkdtempSync(join(tmpdir(), 'dw-client-user-'));
  const modules = join(project, 'node_modules');
  installed = join(modules, 'docwright');
  mkdirSync(installed, { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== '.bin' && name !== 'docwright')
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
  const build = spawnSync(
    process.execPath,
    [TSC, '-p', join(ROOT, 'tsconfig.client.json'), '--outDir', join(installed, 'dist')],
    { encoding: 'utf8' },
  );
  assert.equal(build.status, 0, build.stdout + build.stderr);
});
after(() => rmSync(project, { recursive: true, force: true }));

test('Node imports docwright/client from node_modules as JavaScript, loading only the client and contract', () => {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
    const { DocwrightClient, NotFoundError } = await import('docwright/client');
    const client = new DocwrightClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'dw_x' });
    if (typeof client.getJob !== 'function' || typeof NotFoundError !== 'function') throw new Error('incomplete');
    process.stdout.write(JSON.stringify(seen));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: project,
  });
  assert.equal(child.status, 0, child.stderr);
  const loaded = (JSON.parse(child.stdout) as string[]).filter((url) => url.startsWith('file:'));
  // The client and the contract's files it uses, as JavaScript; no package (typebox) is loaded.
  const dirs = ['sdk', 'contract'].map((dir) => pathToFileURL(join(installed, 'dist', dir)).href);
  assert.ok(loaded.length >= 5, loaded.join('\n'));
  assert.ok(
    loaded.every((url) => dirs.some((dir) => url.startsWith(dir)) && url.endsWith('.js')),
    loaded.join('\n'),
  );
});

test('the build holds the client and the contract, nothing else of docwright', () => {
  assert.deepEqual(readdirSync(join(installed, 'dist')).sort(), ['contract', 'sdk']);
});

test('a TypeScript project type-checks against the declarations, and catches a wrong use', () => {
  const check = (code: string) => {
    writeFileSync(join(project, 'use.ts'), code);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['use.ts'],
      }),
    );
    return spawnSync(process.execPath, [TSC, '-p', join(project, 'tsconfig.json')], { encoding: 'utf8' });
  };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  const good = check(`
    import { DocwrightClient, type DocwrightClientOptions } from 'docwright/client';
    const options: DocwrightClientOptions = { baseUrl: 'http://127.0.0.1:3000', apiKey: 'dw_x' };
    const client = new DocwrightClient(options);
    export async function latest(project: string): Promise<string | null> {
      const job = await client.getJob(project, 'job_x');
      const status: 'active' | 'completed' | 'archived' | 'failed' = job.status;
      return status === 'completed' ? job.prLink : null;
    }
  `);
  assert.equal(good.status, 0, good.stdout + good.stderr);
  const wrong = check(`
    import { DocwrightClient } from 'docwright/client';
    const client = new DocwrightClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'dw_x' });
    export const n: number = (await client.getJob('p', 'j')).status;
  `);
  assert.notEqual(wrong.status, 0, 'a string status assigned to a number must not type-check');
  assert.match(wrong.stdout, /TS2322/);
});

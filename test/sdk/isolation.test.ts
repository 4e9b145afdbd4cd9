// The client must run outside Node (Deno, Bun, browsers) and without the server: it may import
// nothing from node:, and at run time nothing outside src/sdk. Types come from the server's
// schemas through `import type`, which type stripping erases: checked here on the source, on the
// stripped JavaScript, and on the modules Node actually loads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stripTypes } from '../helpers/strip-types.ts';

const SDK = fileURLToPath(new URL('../../src/sdk/', import.meta.url));
const files = readdirSync(SDK, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(SDK, f));

/** Module specifiers of import/export ... from '...' and import('...'). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  return found;
}

test('the sdk folder has its files (the checks below look at something)', () => {
  assert.ok(files.length >= 5, files.join(', '));
  assert.ok(files.some((f) => f.endsWith('index.ts')));
});

test('no file imports node: builtins, not even their types', () => {
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const bad = specifiers(source).filter(
      (s) => s.startsWith('node:') || /^(fs|path|http|https|crypto|os|url|stream|util|buffer)$/.test(s),
    );
    assert.deepEqual(bad, [], relative(SDK, file));
  }
});

test('once types are stripped, every import is a file inside src/sdk', () => {
  let serverTypeImports = 0;
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    serverTypeImports += specifiers(source).filter((s) => s.startsWith('../')).length;
    const js = stripTypes(source);
    for (const specifier of specifiers(js)) {
      assert.ok(specifier.startsWith('./'), `${relative(SDK, file)} imports "${specifier}" at run time`);
      const target = resolve(dirname(file), specifier);
      assert.ok(target.startsWith(SDK), `${relative(SDK, file)} imports ${target}`);
    }
  }
  // The types do come from the server's schemas: if this drops to zero, the check above proves little.
  assert.ok(serverTypeImports > 0, 'some files import types from the server schemas');
});

test('no Node-only globals in the code that runs', () => {
  for (const file of files) {
    const js = stripTypes(readFileSync(file, 'utf8'))
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    const used = js.match(/\b(Buffer|process|require|__dirname|__filename|setImmediate|global)\b/g) ?? [];
    assert.deepEqual(used, [], relative(SDK, file));
  }
});

test('loading docwright/client in Node loads only files of src/sdk', () => {
  const entry = pathToFileURL(join(SDK, 'index.ts')).href;
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
    const sdk = await import(${JSON.stringify(entry)});
    if (typeof sdk.DocwrightClient !== 'function') throw new Error('no DocwrightClient');
    process.stdout.write(JSON.stringify(seen));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const loaded = JSON.parse(child.stdout) as string[];
  assert.ok(loaded.length >= 5, loaded.join('\n'));
  const sdkUrl = pathToFileURL(SDK).href;
  const outside = loaded.filter((url) => !url.startsWith(sdkUrl));
  assert.deepEqual(outside, [], 'modules loaded from outside src/sdk');
});

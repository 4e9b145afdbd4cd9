// The client must run outside Node (Deno, Bun, browsers) and without the server: it may import
// nothing from node:, and of docwright only the wire contract (src/contract). At run time it
// loads only src/sdk and the contract's files that import nothing (no typebox, no package); the
// types of the contract's schemas come through `import type`, which type stripping erases.
// Checked here on the source, on the stripped JavaScript, and on the modules Node actually loads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importSpecifiers } from '../helpers/import-specifiers.ts';
import { stripTypes } from '../helpers/strip-types.ts';

const SDK = fileURLToPath(new URL('../../src/sdk/', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../../src/contract/', import.meta.url));
const files = readdirSync(SDK, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(SDK, f));

test('the sdk folder has its files (the checks below look at something)', () => {
  assert.ok(files.length >= 5, files.join(', '));
  assert.ok(files.some((f) => f.endsWith('index.ts')));
});

test('no file imports node: builtins, not even their types', () => {
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const bad = importSpecifiers(source).filter(
      (s) => s.startsWith('node:') || /^(fs|path|http|https|crypto|os|url|stream|util|buffer)$/.test(s),
    );
    assert.deepEqual(bad, [], relative(SDK, file));
  }
});

test('of docwright, the sdk imports only the contract, types included', () => {
  let contractImports = 0;
  for (const file of files) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (target.startsWith(CONTRACT)) contractImports++;
      assert.ok(
        target.startsWith(SDK) || target.startsWith(CONTRACT),
        `${relative(SDK, file)} imports ${target}`,
      );
    }
  }
  // The types do come from the contract: if this drops to zero, the check above proves little.
  assert.ok(contractImports > 0, 'some files import from the contract');
});

/** The files a module imports once its types are stripped, following them through the contract. */
function runTimeImports(file: string, seen = new Set<string>()): Set<string> {
  for (const specifier of importSpecifiers(stripTypes(readFileSync(file, 'utf8')))) {
    assert.ok(
      specifier.startsWith('./') || specifier.startsWith('../'),
      `${file} imports "${specifier}" at run time`,
    );
    const target = resolve(dirname(file), specifier);
    if (seen.has(target)) continue;
    seen.add(target);
    runTimeImports(target, seen);
  }
  return seen;
}

test('once types are stripped, every import is a file of src/sdk or the contract, and no package', () => {
  const loaded = runTimeImports(join(SDK, 'index.ts'));
  assert.ok(
    [...loaded].some((f) => f.startsWith(CONTRACT)),
    'the client uses values of the contract',
  );
  for (const target of loaded)
    assert.ok(target.startsWith(SDK) || target.startsWith(CONTRACT), `the client loads ${target}`);
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

test('loading docwright/client in Node loads only files of src/sdk and the contract', () => {
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
  const inside = [pathToFileURL(SDK).href, pathToFileURL(CONTRACT).href];
  const outside = loaded.filter((url) => !inside.some((dir) => url.startsWith(dir)));
  assert.deepEqual(outside, [], 'modules loaded from outside src/sdk and src/contract');
});

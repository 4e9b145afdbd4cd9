// The wire contract is shared by the server, the client, the CLI and the dashboard, so it may
// depend on none of them: its files import only each other and typebox. The files the client
// loads at run time import nothing at all once types are stripped, so the client loads no package.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importSpecifiers } from '../helpers/import-specifiers.ts';
import { stripTypes } from '../helpers/strip-types.ts';

const CONTRACT = fileURLToPath(new URL('../../src/contract/', import.meta.url));
const files = readdirSync(CONTRACT)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(CONTRACT, f));

test('the contract folder has its public surface and topic files', () => {
  assert.ok(files.some((f) => f.endsWith('/index.ts')));
  assert.ok(files.length >= 5, files.join(', '));
});

test('contract files import only each other and typebox, types included', () => {
  for (const file of files) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (specifier === 'typebox') continue;
      assert.ok(specifier.startsWith('./'), `${relative(CONTRACT, file)} imports "${specifier}"`);
      assert.ok(resolve(dirname(file), specifier).startsWith(CONTRACT), `${relative(CONTRACT, file)}`);
    }
  }
});

test('the files the client loads import nothing at run time', () => {
  for (const name of [
    'csv.ts',
    'error-codes.ts',
    'job-events.ts',
    'job-failure-codes.ts',
    'job-statuses.ts',
  ]) {
    const js = stripTypes(readFileSync(join(CONTRACT, name), 'utf8'));
    assert.deepEqual(importSpecifiers(js), [], name);
  }
});

// The tests that strip the client's types print no ExperimentalWarning into the test run (Node's
// own stripTypeScriptTypes is experimental in Node 24 and warned once per file that called it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stripTypes } from '../helpers/strip-types.ts';

test('the isolation tests, which strip types, run without an ExperimentalWarning', () => {
  const file = fileURLToPath(new URL('./isolation.test.ts', import.meta.url));
  // Run on its own, not as a child of this test run (which would take over its output).
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', env });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /ExperimentalWarning/);
});

test('stripping keeps imports and code, and removes only types', () => {
  const js = stripTypes(
    "import type { A } from './a.ts';\nimport { b, type C } from './b.ts';\nexport const x: A = b as C;\n",
  );
  assert.doesNotMatch(js, /from '\.\/a\.ts'/);
  assert.match(js, /import \{ b,?\s*\} from '\.\/b\.ts';/);
  assert.match(js, /export const x\s*= b\s*;/);
});

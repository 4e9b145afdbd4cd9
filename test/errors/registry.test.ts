// docs/errors.md and the code's registry must list the same codes with the same statuses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_REGISTRY, JOB_FAILURE_REGISTRY } from '../../src/contract/index.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const section = (heading: string) => {
  const start = doc.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `docs/errors.md has a "## ${heading}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
};
const rows = (text: string) =>
  [...text.matchAll(/^\| `([a-z0-9_]+)` \|(.*)\|\s*$/gm)].map((m) => ({
    code: m[1]!,
    cells: m[2]!.split('|').map((c) => c.trim()),
  }));

test('every HTTP error code is documented with its status, and nothing else is', () => {
  const documented = rows(section('HTTP error codes'));
  const byCode = new Map(documented.map((r) => [r.code, r]));
  assert.equal(byCode.size, documented.length, 'no code is documented twice');
  for (const [code, spec] of ERROR_REGISTRY) {
    const row = byCode.get(code);
    assert.ok(row, `docs/errors.md lacks ${code}`);
    assert.equal(Number(row.cells[0]), spec.status, `status of ${code}`);
    assert.ok((row.cells[1] ?? '').length > 10, `${code} has a description`);
  }
  for (const code of byCode.keys())
    assert.ok(ERROR_REGISTRY.has(code), `docs/errors.md lists unknown ${code}`);
});

test('every job failure code is documented, and nothing else is', () => {
  const documented = new Set(rows(section('Job failure codes')).map((r) => r.code));
  assert.deepEqual([...documented].sort(), [...JOB_FAILURE_REGISTRY.keys()].sort());
});

test('codes are snake_case and statuses are errors', () => {
  for (const [code, spec] of ERROR_REGISTRY) {
    assert.match(code, /^[a-z][a-z0-9_]*$/);
    assert.ok(spec.status >= 400 && spec.status < 600, code);
  }
});

// docs/configuration.md must list exactly the variables the config module reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_VARIABLES } from '../../src/config/variables.ts';

test('every server variable is documented, and nothing else is', () => {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Server variables'), doc.indexOf('## Client variables'));
  const documented = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...documented].sort(), Object.keys(CONFIG_VARIABLES).sort());
});

// docs/configuration.md must list exactly the variables the config module reads, as their
// declarations describe them: its tables are generated (node scripts/generate-config-docs.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_DOC_PATH, renderConfigurationDoc } from '../../scripts/generate-config-docs.ts';
import { CONFIG_VARIABLES } from '../../src/config/variables.ts';

const doc = () => readFileSync(CONFIG_DOC_PATH, 'utf8');

test('every server variable is documented, and nothing else is', () => {
  const text = doc();
  const section = text.slice(text.indexOf('## Server variables'), text.indexOf('## Client variables'));
  const documented = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...documented].sort(), Object.keys(CONFIG_VARIABLES).sort());
});

test('the variable tables are what the declarations render to', () => {
  const actual = doc();
  assert.ok(
    renderConfigurationDoc(actual) === actual,
    'docs/configuration.md is stale: run "node scripts/generate-config-docs.ts" and commit it',
  );
});

test('only the marked regions are generated: the prose around them stays', () => {
  const page = [
    'Intro by hand.',
    '<!-- generated:server-variables by scripts/generate-config-docs.ts: do not edit by hand -->',
    '| `OLD_VARIABLE` | stale |',
    '<!-- end generated:server-variables -->',
    'Between, by hand.',
    '<!-- generated:client-variables by scripts/generate-config-docs.ts: do not edit by hand -->',
    '<!-- end generated:client-variables -->',
    'Outro by hand.',
  ].join('\n');
  const rendered = renderConfigurationDoc(page);
  assert.doesNotMatch(rendered, /OLD_VARIABLE/);
  assert.match(rendered, /^\| `DOCWRIGHT_JOB_LEASE_SECONDS` \| integer 3–3600 \| `30` \| /m);
  assert.match(rendered, /^\| `DOCWRIGHT_URL` \| /m);
  for (const prose of ['Intro by hand.', 'Between, by hand.', 'Outro by hand.'])
    assert.match(rendered, new RegExp(prose));
  assert.throws(() => renderConfigurationDoc('no markers'), /lacks the markers/);
});

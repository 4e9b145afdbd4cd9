// The documentation's own consistency: docs/README.md links every page of docs/ (so a new page is
// findable), every relative link between pages points at a page that exists, and the
// troubleshooting page has a section for every job failure code.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JOB_FAILURE_CODES } from '../../src/contract/index.ts';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const pages = readdirSync(DOCS).filter((name) => name.endsWith('.md') && name !== 'README.md');
const read = (name: string) => readFileSync(`${DOCS}${name}`, 'utf8');

test('docs/README.md links every page of docs/', () => {
  const index = read('README.md');
  const linked = new Set([...index.matchAll(/\]\(([a-z0-9-]+\.md)\)/g)].map((m) => m[1]));
  assert.deepEqual(
    pages.filter((page) => !linked.has(page)),
    [],
    'pages missing from docs/README.md',
  );
});

test('relative links between pages point at pages that exist', () => {
  const broken: string[] = [];
  for (const page of [...pages, 'README.md']) {
    for (const match of read(page).matchAll(/\]\(([^)#:\s]+\.md)(#[^)]*)?\)/g)) {
      if (!existsSync(new URL(match[1]!, `file://${DOCS}`))) broken.push(`${page} → ${match[1]}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('troubleshooting.md says what to do for every job failure code', () => {
  const text = read('troubleshooting.md');
  const sections = new Set([...text.matchAll(/^### `([a-z_]+)`$/gm)].map((m) => m[1]));
  assert.deepEqual(
    Object.keys(JOB_FAILURE_CODES).filter((code) => !sections.has(code)),
    [],
  );
  assert.deepEqual(
    [...sections].filter((code) => !(code! in JOB_FAILURE_CODES)),
    [],
  );
});

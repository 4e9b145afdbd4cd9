// The process-wide facts cache: keyed by the git blob id, so two snapshots (of any repository)
// holding the same page text share its parse, and a page parsed as Markdown is not reused as MDX.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { blobId } from '../../src/docs-checks/facts-cache.ts';
import { clearFactsCache, DocsSnapshot, type DocsSource } from '../../src/docs-checks/index.ts';

function source(files: Record<string, string>): DocsSource {
  return { files: Object.keys(files), read: async (path) => files[path] ?? null };
}

test('blobId is what git computes for the same content', () => {
  for (const text of ['', 'hello\n', '# Überschrift\n\nmit Umlauten ✓\n']) {
    const git = execFileSync('git', ['hash-object', '--stdin'], { input: text }).toString().trim();
    assert.equal(blobId(text), git);
  }
});

test('two snapshots holding the same page text share its parsed facts; MDX and Markdown apart', async () => {
  clearFactsCache();
  const text = '# Title\n\nSee [setup](./setup.md#install).\n';
  const one = await DocsSnapshot.build(source({ 'a.md': text }));
  const two = await DocsSnapshot.build(source({ 'guide/b.md': text }));
  const first = await one.pageFacts('a.md');
  assert.ok(first);
  assert.equal(await two.pageFacts('guide/b.md'), first, 'the same blob is parsed once');
  const asMdx = await DocsSnapshot.build(source({ 'c.mdx': text }));
  const third = await asMdx.pageFacts('c.mdx');
  assert.notEqual(third, first, 'the MDX parse is its own entry');
  assert.deepEqual(third, first);
  clearFactsCache();
  const three = await DocsSnapshot.build(source({ 'a.md': text }));
  assert.notEqual(await three.pageFacts('a.md'), first, 'cleared: parsed again');
});

test('a full parse of many pages fills the cache for the next snapshot', async () => {
  clearFactsCache();
  const files: Record<string, string> = {};
  for (let i = 0; i < 450; i++) files[`p${i}.md`] = `# Page ${i}\n\n[next](./p${i + 1}.md)\n`;
  const one = await DocsSnapshot.build(source(files));
  await one.parseAll();
  const two = await DocsSnapshot.build(source(files));
  assert.equal(await two.pageFacts('p7.md'), await one.pageFacts('p7.md'));
});

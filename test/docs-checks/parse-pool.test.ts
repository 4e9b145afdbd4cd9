// The parse pool: pages handed over while a run is still reading them are parsed on worker
// threads (from 400 pages, on two or more cores) with exactly the facts a parse in this thread
// gives, answered in the order they were added, whichever worker took which batch.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { pageFacts } from '../../src/docs-checks/page-facts.ts';
import { PageParser, type PageToParse } from '../../src/docs-checks/parse-pool.ts';

/** Pages of every shape the facts record: links, anchors, images, JSX, bad MDX, bad YAML. */
function pages(count: number): PageToParse[] {
  const shapes = [
    (i: number) => `---\ntitle: Page ${i}\n---\n\n## Setup {#setup-${i}}\n\nSee [next](./p${i + 1}#setup).\n`,
    (i: number) => `# Title ${i}\n\n<Note id="n${i}">Hi</Note>\n\n![img](/img/${i}.png)\n`,
    (i: number) => `---\ntitle: [unclosed ${i}\n---\n\nText.\n`,
    (i: number) => `# Broken ${i}\n\n<Steps>\n\nno closing tag\n`,
    (i: number) => `Text with a stray { brace ${i}.\n\n<a href="/x/${i}" id="a${i}">x</a>\n`,
    (i: number) => `${'- '.repeat(40)}deep ${i}\n`,
  ];
  return Array.from({ length: count }, (_, i) => ({
    path: `s${i % 7}/p${i}.${i % 3 === 0 ? 'md' : 'mdx'}`,
    text: shapes[i % shapes.length]!(i),
  }));
}

for (const mdx of [false, true]) {
  test(`many pages on workers give the facts of an inline parse, in order (mdx: ${mdx})`, async () => {
    const all = pages(1234);
    // Every fifth page is one the run already knows: skipped, not parsed.
    const parser = new PageParser(mdx, all.length);
    const added = all.filter((_, i) => i % 5 !== 0);
    for (const [i, page] of all.entries()) {
      if (i % 5 === 0) parser.skip();
      else parser.add(page);
    }
    const facts = await parser.finish();
    assert.deepEqual(
      [...facts.keys()],
      added.map((page) => page.path),
    );
    for (const page of added) {
      assert.deepEqual(facts.get(page.path), pageFacts(page.path, page.text, { mdx }), page.path);
    }
    if (availableParallelism() >= 2) assert.ok(added.length >= 400, 'enough pages for the workers');
  });
}

test('a few pages are parsed inline, and nothing is left running', async () => {
  const few = pages(30);
  const parser = new PageParser(true, few.length);
  for (const page of few) parser.add(page);
  const facts = await parser.finish();
  assert.equal(facts.size, 30);
  assert.deepEqual(
    facts.get(few[3]!.path)?.parseError?.line,
    pageFacts(few[3]!.path, few[3]!.text, { mdx: true }).parseError?.line,
  );
});

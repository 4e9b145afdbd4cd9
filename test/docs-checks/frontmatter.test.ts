// Front matter read by the pattern for simple `key: Plain text` lines must be exactly what the
// yaml library reads, and the pattern must leave everything else to the library.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { readFrontmatter, simpleFrontmatter, yamlFrontmatter } from '../../src/docs-checks/frontmatter.ts';
import { pageFacts } from '../../src/docs-checks/page-facts.ts';

test('simple lines are read as YAML reads them', () => {
  const simple = simpleFrontmatter('title: Page 1\ndescription: What page 1 covers, (and why) - a/b.', 2);
  assert.ok(simple, 'read by the pattern');
  assert.deepStrictEqual(
    simple,
    yamlFrontmatter('title: Page 1\ndescription: What page 1 covers, (and why) - a/b.', 2),
  );
});

test('what YAML reads as anything but the same string goes to the yaml library', () => {
  for (const source of [
    '',
    'title: true',
    'title: Null',
    'true: x',
    'title: a: b',
    'title: a #comment',
    'title: x ',
    'title:  x',
    'title: "Quoted"',
    "title: 'Quoted'",
    'title: 12',
    'title: x\ntitle: y',
    'title: x\n',
    'title: x\r',
    '# comment\ntitle: x',
    'title: [a, b]',
    'title: Überschrift',
    'tags:\n  - a',
  ]) {
    const simple = simpleFrontmatter(source, 1);
    if (simple) assert.deepStrictEqual(simple, yamlFrontmatter(source, 1), JSON.stringify(source));
    assert.deepStrictEqual(readFrontmatter(source, 1), yamlFrontmatter(source, 1), JSON.stringify(source));
  }
  assert.equal(simpleFrontmatter('title: true', 1), null);
  assert.equal(simpleFrontmatter('title: a #comment', 1), null);
  assert.equal(simpleFrontmatter('title: x\ntitle: y', 1), null);
});

test('property: generated front matter reads the same by pattern and by YAML', () => {
  const piece = fc.constantFrom(
    'a',
    'Z',
    'x1',
    ' ',
    '  ',
    ':',
    ': ',
    '#',
    ' #',
    "'",
    '"',
    '-',
    '- ',
    '.',
    ',',
    '(',
    ')',
    '/',
    '_',
    'true',
    'False',
    'null',
    '~',
    '0',
    '12',
    '1.5',
    '0x1F',
    '.inf',
    'yes',
    'é',
    '\t',
    '[',
    '{',
    '&',
    '*',
    '!',
    '|',
    '>',
    '?',
    '%',
    '@',
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
  const key = fc.oneof(
    { arbitrary: fc.constantFrom('title', 'description', 'sidebar_title', 'true', 'a-b'), weight: 4 },
    { arbitrary: text, weight: 1 },
  );
  // Values that are nearly plain text, as most front matter is, so the pattern is exercised.
  const nearlyPlain = fc
    .tuple(
      fc.constantFrom('Page', 'a', 'Setup', 'Null', 'true'),
      fc.array(
        fc.constantFrom('b', 'Z9', ' ', '-', '.', ',', '(', ')', '/', "'", '_', ' x', ': ', ' #', '  '),
        {
          maxLength: 5,
        },
      ),
    )
    .map(([first, rest]) => first + rest.join(''));
  const value = fc.oneof({ arbitrary: text, weight: 1 }, { arbitrary: nearlyPlain, weight: 4 });
  const line = fc
    .tuple(key, fc.constantFrom(': ', ': ', ':  ', ':', ' : '), value)
    .map(([k, sep, v]) => `${k}${sep}${v}`);
  let bySimple = 0;
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 9 }),
      (lines, at) => {
        const source = lines.join('\n');
        if (simpleFrontmatter(source, at)) bySimple++;
        assert.deepStrictEqual(readFrontmatter(source, at), yamlFrontmatter(source, at));
      },
    ),
    { numRuns: 3000 },
  );
  assert.ok(bySimple >= 100, `the pattern read ${bySimple} of the generated front matters`);
});

test('front matter that parses but has no value (an alias to no anchor) is an error, not a throw', () => {
  // It threw out of the whole check before.
  const facts = pageFacts('a.md', '---\ntitle: *a\n---\n\n# A\n', { mdx: false });
  assert.equal(facts.frontmatter?.line, 2);
  assert.match(facts.frontmatter?.error ?? '', /Unresolved alias/);
  assert.equal(facts.frontmatter?.fields, null);
});

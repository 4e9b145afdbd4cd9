// The job page's docs checks block: the last check over the whole change, its problems listed,
// and their text escaped (a message quotes a link target the model wrote).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobEventView } from '../../src/contract/index.ts';
import { docsChecksBlock } from '../../src/modules/dashboard/views/job-checks.ts';

const event = (id: number, data: Record<string, unknown>): JobEventView => ({
  id,
  type: 'docs_checks',
  createdAt: new Date(0).toISOString(),
  data,
});

test('shows the last whole-change check, with problems escaped; nothing without one', () => {
  assert.equal(docsChecksBlock([]), '');
  const problem = {
    code: 'link_broken',
    file: 'docs/a.md',
    line: 3,
    message: 'The link target "<script>alert(1)</script>" does not exist.',
    hint: 'Point the link at an existing page.',
  };
  const text = String(
    docsChecksBlock([
      event(1, { scope: null, framework: 'mkdocs', mode: 'warn', introducedCount: 0, preexisting: 0 }),
      event(2, {
        scope: null,
        framework: 'mkdocs',
        mode: 'warn',
        introducedCount: 1,
        introduced: [problem],
        preexisting: 2,
      }),
      event(3, { scope: ['docs/b.md'], framework: 'mkdocs', mode: 'warn', introducedCount: 0 }),
    ]),
  );
  assert.match(text, /mkdocs · 1 problem introduced \(pull request opened as a draft\) · 2 already there/);
  assert.match(text, /<code>docs\/a\.md:3<\/code> <strong>link_broken<\/strong>/);
  assert.doesNotMatch(text, /<script>/);
  assert.match(text, /&lt;script&gt;/);
});

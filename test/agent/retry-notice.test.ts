// What a retried run is told when an earlier try at its request may have pushed work: the branch's
// diff against its base, that an earlier attempt made it, and not to make it again; and which
// tries count as earlier ones (the worker's reading of the job's events).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAgentInstructions, MAX_BRANCH_DIFF_CHARS } from '../../src/agent/instructions.ts';
import { earlierTriesOf } from '../../src/modules/jobs/worker.ts';

const DIFF = [
  'diff --git a/docs/guide.md b/docs/guide.md',
  '--- a/docs/guide.md',
  '+++ b/docs/guide.md',
  '@@ -1 +1,3 @@',
  ' # Guide',
  '+',
  '+## Upgrading',
  '',
].join('\n');

const lastUserText = (messages: ReturnType<typeof buildAgentInstructions>['messages']) => {
  const last = messages.at(-1)!;
  assert.equal(last.role, 'user');
  return last.content as string;
};

test('a retry of a first request: the request, then the diff of what the earlier attempt pushed', () => {
  const text = lastUserText(
    buildAgentInstructions({ prompt: 'Add an upgrading section.', branchSoFar: { base: 'main', diff: DIFF } })
      .messages,
  );
  assert.ok(text.startsWith('Add an upgrading section.\n\n## Work already done on this request\n\n'), text);
  assert.match(text, /already holds what that attempt pushed\. Its diff against main:/);
  assert.ok(text.includes(`\`\`\`diff\n${DIFF.trimEnd()}\n\`\`\``), text);
  assert.match(text, /Do not make these changes again\./);
  assert.doesNotMatch(text, /was cut after/);
});

test('a retry of a follow-up: the diff also holds the earlier requests', () => {
  const { messages } = buildAgentInstructions({
    prompt: 'Now mention the changelog.',
    history: [{ prompt: 'Add an upgrading section.', summary: 'Added it.' }],
    branchSoFar: { base: 'release/2.x', diff: DIFF },
  });
  const text = lastUserText(messages);
  assert.match(text, /^Follow-up request\./);
  assert.match(
    text,
    /your changes for the earlier requests above and whatever that attempt pushed for this one\. Its diff against release\/2\.x:/,
  );
});

test('a long diff is cut, and the model is told to read the files for the rest', () => {
  const long = `${DIFF}${'+more text\n'.repeat(MAX_BRANCH_DIFF_CHARS / 5)}`;
  const text = lastUserText(
    buildAgentInstructions({ prompt: 'Go on.', branchSoFar: { base: 'main', diff: long } }).messages,
  );
  assert.ok(text.length < MAX_BRANCH_DIFF_CHARS + 2000, String(text.length));
  assert.ok(text.includes(long.slice(0, MAX_BRANCH_DIFF_CHARS)));
  assert.match(text, /\(The diff was cut after 40000 characters; read the files for the rest\.\)/);
});

test('no earlier try: the request alone', () => {
  assert.equal(lastUserText(buildAgentInstructions({ prompt: 'Fix a typo.' }).messages), 'Fix a typo.');
});

test('earlier tries count the starts of the latest request, not the one beginning now', () => {
  const events = (...types: string[]) => types.map((type) => ({ type }));
  assert.equal(earlierTriesOf(events('created', 'started')), 0);
  // A worker died (no outcome), another took the job.
  assert.equal(earlierTriesOf(events('created', 'started', 'started')), 1);
  // Handed back at shutdown: the try ran, and may have pushed, though it used up no attempt.
  assert.equal(earlierTriesOf(events('created', 'started', 'started', 'started')), 2);
  // A follow-up starts over: the tries of the earlier request do not count.
  assert.equal(earlierTriesOf(events('created', 'started', 'started', 'completed', 'message', 'started')), 0);
  assert.equal(earlierTriesOf(events('created', 'started', 'failed', 'message', 'started', 'started')), 1);
});

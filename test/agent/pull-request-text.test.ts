// What a job says when its run stopped at a bound: with changes published, the note says the pull
// request holds them; with no change, the failure says there is nothing to review, and nothing in
// it speaks of work done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StopReason } from '../../src/agent/loop.ts';
import { nothingChangedNote, pullRequestBody, stopNote } from '../../src/agent/pull-request-text.ts';

const BOUNDS: StopReason[] = ['max_steps', 'max_tokens', 'wall_time', 'stuck'];

test('no file changed: the message names the bound and claims no work', () => {
  for (const bound of BOUNDS) {
    const message = nothingChangedNote(bound);
    assert.match(message, new RegExp(`\\(${bound}\\)`));
    assert.match(message, /before it changed any file, so there is nothing to review\.$/);
    assert.doesNotMatch(message, /work it had done|had done|changes it had made/, message);
  }
  assert.equal(
    nothingChangedNote('max_steps'),
    'The agent stopped at its step bound (max_steps) before it changed any file, so there is nothing to review.',
  );
});

test('files changed: the note names the bound and points at the published changes', () => {
  for (const bound of [...BOUNDS, 'no_more_tool_calls'] as StopReason[]) {
    const note = stopNote(bound) ?? '';
    assert.match(note, new RegExp(`\\(${bound}\\)`));
    assert.match(note, /the pull request holds the changes it had made by then\.$/);
    assert.doesNotMatch(note, /nothing to review|No file/);
  }
  assert.equal(
    stopNote('stuck'),
    'The agent stopped after repeating a failing action (stuck) before it finished; the pull request holds the changes it had made by then.',
  );
  // Read as a sentence: "stopped without calling finish", not "stopped at without calling finish".
  assert.match(stopNote('no_more_tool_calls') ?? '', /^The agent stopped without calling finish \(/);
  assert.equal(stopNote('finish'), null);
});

test('the pull request body carries the note only for a run cut short', () => {
  const body = (stoppedBy: StopReason) =>
    pullRequestBody({ summary: 'Did it.', stoppedBy, prompts: ['Do it'], jobUrl: 'http://x/j', jobId: 'j' });
  assert.match(body('wall_time'), /> \[!NOTE\]\n> The agent stopped at its time bound \(wall_time\)/);
  assert.doesNotMatch(body('finish'), /\[!NOTE\]/);
});

// The comment readers of the review_comment trigger, on the hosts' payloads: what each takes from
// a comment (file, lines, side, thread), what it passes over, and the mention match.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readGiteaComment } from '../../src/modules/automations/hosts/review-comment-gitea.ts';
import { readGitHubComment } from '../../src/modules/automations/hosts/review-comment-github.ts';
import { readGitLabComment } from '../../src/modules/automations/hosts/review-comment-gitlab.ts';
import { mentions } from '../../src/modules/automations/review-comment.ts';
import { giteaCommentPayload, gitlabNotePayload } from '../stand-ins/code-host-webhooks.ts';
import { GitHubFake } from '../stand-ins/github-fake.ts';

const fake = new GitHubFake();
before(async () => {
  await fake.start();
  fake.addRepo({ owner: 'acme', name: 'docs' });
  fake.addOpenPull('acme', 'docs', { title: 'Docs', head: 'docwright/docs-abc123' });
});
after(() => fake.stop());

const github = (event: string, payload: unknown) =>
  readGitHubComment({ 'x-github-event': event, 'x-github-delivery': 'd1' }, payload);

test('GitHub: a reply in a diff thread names the thread by its first comment, lines and side', () => {
  const payload = fake.commentOnPullLines('acme', 'docs', 1, {
    body: 'Old wording was better.',
    path: 'docs/a.md',
    line: 9,
    startLine: 7,
    side: 'LEFT',
    inReplyTo: 123,
  });
  const read = github('pull_request_review_comment', payload);
  assert.equal(read?.deliveryId, 'd1');
  const comment = read!.comment!;
  assert.equal(comment.threadKey, 'review_thread:123');
  assert.equal(comment.commentKey, `review_comment:${payload.comment.id}`);
  assert.deepEqual(
    [comment.path, comment.startLine, comment.endLine, comment.side],
    ['docs/a.md', 7, 9, 'old'],
  );
  assert.equal(comment.headBranch, 'docwright/docs-abc123');
  assert.equal(comment.pullUrl, 'https://github.com/acme/docs/pull/1');
});

test('GitHub: edits, approvals without a body and comments on issues are passed over; other events are not comments', () => {
  const edited = { ...fake.commentOnPull('acme', 'docs', 1, { body: 'x' }), action: 'edited' };
  assert.match(github('issue_comment', edited)!.ignored!, /issue comment edited/);
  const onIssue = fake.commentOnPull('acme', 'docs', 1, { body: 'x' });
  delete (onIssue.issue as Record<string, unknown>).pull_request;
  assert.match(github('issue_comment', onIssue)!.ignored!, /not on a pull request/);
  const approval = fake.reviewPull('acme', 'docs', 1, { body: '', state: 'approved' });
  assert.match(github('pull_request_review', approval)!.ignored!, /without a body/);
  assert.equal(github('push', {}), null);
});

test('GitLab: a note on a removed line reads the old path and line; a note without position has none', () => {
  const note = gitlabNotePayload({
    path: 'acme/docs',
    webUrl: 'https://gitlab.example',
    iid: 2,
    sourceBranch: 'docwright/x',
    noteId: 5,
    note: 'Why remove this?',
    file: { path: 'docs/b.md', line: 4 },
  });
  const attributes = note.object_attributes as { position: Record<string, unknown> };
  Object.assign(attributes.position, { new_line: null, old_line: 12, old_path: 'docs/old-b.md' });
  const headers = { 'x-gitlab-event': 'Note Hook', 'x-gitlab-event-uuid': 'u1' };
  const comment = readGitLabComment(headers, note)!.comment!;
  assert.deepEqual(
    [comment.path, comment.startLine, comment.endLine, comment.side],
    ['docs/old-b.md', 12, 12, 'old'],
  );
  assert.equal(comment.threadKey, 'discussion:d5');
  const plain = readGitLabComment(
    headers,
    gitlabNotePayload({
      path: 'acme/docs',
      webUrl: 'https://gitlab.example',
      iid: 2,
      sourceBranch: 'docwright/x',
      noteId: 6,
      note: 'Thanks',
    }),
  )!.comment!;
  assert.deepEqual([plain.kind, plain.path, plain.endLine], ['comment', null, null]);
  assert.equal(readGitLabComment({ 'x-gitlab-event': 'Push Hook' }, {}), null);
});

test('Gitea: an edited comment is passed over', () => {
  const payload = {
    ...giteaCommentPayload({
      fullName: 'acme/docs',
      webUrl: 'https://gitea.example',
      number: 1,
      commentId: 2,
      body: 'x',
    }),
    action: 'edited',
  };
  const read = readGiteaComment({ 'x-gitea-event': 'issue_comment', 'x-gitea-delivery': 'g1' }, payload);
  assert.match(read!.ignored!, /issue comment edited/);
  assert.equal(readGiteaComment({ 'x-gitea-event': 'push' }, {}), null);
});

test('a mention is the handle as a whole word, in any case', () => {
  assert.ok(mentions('@DocWright, please fix this.', '@docwright'));
  assert.ok(mentions('Thanks (@docwright).', 'docwright'));
  assert.ok(mentions('cc @docwright-app[bot]', '@docwright-app[bot]'));
  assert.ok(!mentions('@docwrighter please', '@docwright'));
  assert.ok(!mentions('mail me at me@docwright.dev', '@docwright'));
  assert.ok(!mentions('no mention here', '@docwright'));
});

// GitHub's comment webhooks on pull requests (the signature is checked by github.ts first):
// pull_request_review_comment (created: a comment on lines of the diff, or a reply in such a
// thread: in_reply_to_id names the thread's first comment), pull_request_review (submitted, with
// a body) and issue_comment (created, on an issue that is a pull request: the conversation).
// Payload types are @octokit/webhooks'.
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import { type Headers, header } from './headers.ts';
import {
  capHunk,
  capText,
  positiveLine,
  type ReadReviewComment,
  skipComment,
} from './review-comment-event.ts';

export const GITHUB_COMMENT_EVENTS = ['pull_request_review_comment', 'pull_request_review', 'issue_comment'];

/** The comment a GitHub delivery tells of; null when the event is not a comment event. */
export function readGitHubComment(headers: Headers, payload: unknown): ReadReviewComment | null {
  const deliveryId = header(headers, 'x-github-delivery');
  const name = header(headers, 'x-github-event');
  if (name === 'pull_request_review_comment') {
    const event = payload as EmitterWebhookEvent<'pull_request_review_comment.created'>['payload'];
    if (event.action !== 'created') return skipComment(deliveryId, `review comment ${String(event.action)}`);
    const { comment, pull_request: pr } = event;
    const endLine = positiveLine(comment.line) ?? positiveLine(comment.original_line);
    const rootId = comment.in_reply_to_id ?? comment.id;
    return {
      deliveryId,
      ignored: null,
      comment: {
        type: 'review_comment',
        host: 'github',
        kind: 'review_comment',
        commentKey: `review_comment:${comment.id}`,
        threadKey: `review_thread:${rootId}`,
        repository: event.repository.full_name,
        pullNumber: pr.number,
        pullUrl: pr.html_url,
        headBranch: pr.head?.ref ?? null,
        author: comment.user?.login ?? '',
        viaAppId: null,
        body: capText(comment.body),
        url: comment.html_url,
        path: comment.path,
        startLine: positiveLine(comment.start_line) ?? positiveLine(comment.original_start_line) ?? endLine,
        endLine,
        side: comment.side === 'LEFT' ? 'old' : 'new',
        diffHunk: capHunk(comment.diff_hunk),
      },
    };
  }
  if (name === 'pull_request_review') {
    const event = payload as EmitterWebhookEvent<'pull_request_review.submitted'>['payload'];
    if (event.action !== 'submitted') return skipComment(deliveryId, `review ${String(event.action)}`);
    const { review, pull_request: pr } = event;
    if ((review.body ?? '').trim() === '') {
      // Its line comments arrive as pull_request_review_comment deliveries of their own.
      return skipComment(deliveryId, 'a review without a body of its own');
    }
    return {
      deliveryId,
      ignored: null,
      comment: {
        type: 'review_comment',
        host: 'github',
        kind: 'review',
        commentKey: `review:${review.id}`,
        threadKey: `review:${review.id}`,
        repository: event.repository.full_name,
        pullNumber: pr.number,
        pullUrl: pr.html_url,
        headBranch: pr.head?.ref ?? null,
        author: review.user?.login ?? '',
        viaAppId: null,
        body: capText(review.body),
        url: review.html_url,
        path: null,
        startLine: null,
        endLine: null,
        side: null,
        diffHunk: '',
      },
    };
  }
  if (name === 'issue_comment') {
    const event = payload as EmitterWebhookEvent<'issue_comment.created'>['payload'];
    if (event.action !== 'created') return skipComment(deliveryId, `issue comment ${String(event.action)}`);
    const { issue, comment } = event;
    if (!issue.pull_request) return skipComment(deliveryId, 'a comment on an issue, not on a pull request');
    const app = comment.performed_via_github_app;
    return {
      deliveryId,
      ignored: null,
      comment: {
        type: 'review_comment',
        host: 'github',
        kind: 'comment',
        commentKey: `issue_comment:${comment.id}`,
        threadKey: 'conversation',
        repository: event.repository.full_name,
        pullNumber: issue.number,
        pullUrl: issue.pull_request.html_url ?? issue.html_url,
        headBranch: null,
        author: comment.user?.login ?? '',
        viaAppId: app ? String(app.id) : null,
        body: capText(comment.body),
        url: comment.html_url,
        path: null,
        startLine: null,
        endLine: null,
        side: null,
        diffHunk: '',
      },
    };
  }
  return null;
}

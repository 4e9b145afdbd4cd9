// Gitea's (and Forgejo's) comment webhooks on pull requests (the signature is checked by gitea.ts
// first). X-Gitea-Event is issue_comment for a comment on an issue or a pull request's
// conversation (is_pull tells which) and pull_request_comment for a submitted review with a
// comment (action reviewed, review.content); X-Gitea-Event-Type names them more finely
// (pull_request_comment, pull_request_review_comment), and either is read. Gitea's payloads
// carry neither a comment's file nor its lines, nor a review's id.
import { type Headers, header } from './headers.ts';
import { capText, type ReadReviewComment, skipComment } from './review-comment-event.ts';

// biome-ignore lint/suspicious/noExplicitAny: gitea-js has no webhook payload types; every field read is converted with String() or checked
type Json = Record<string, any>;

/** The comment a Gitea delivery tells of; null when the event is not a comment event. */
export function readGiteaComment(headers: Headers, payload: unknown): ReadReviewComment | null {
  const deliveryId = header(headers, 'x-gitea-delivery') ?? header(headers, 'x-forgejo-delivery');
  const name = header(headers, 'x-gitea-event') ?? header(headers, 'x-forgejo-event');
  const fine = header(headers, 'x-gitea-event-type') ?? header(headers, 'x-forgejo-event-type');
  const body = (payload ?? {}) as Json;
  const repository = String(body.repository?.full_name ?? '');
  if (name === 'issue_comment') {
    if (body.action !== 'created') return skipComment(deliveryId, `issue comment ${String(body.action)}`);
    const issue = (body.issue ?? {}) as Json;
    if (body.is_pull !== true && !issue.pull_request) {
      return skipComment(deliveryId, 'a comment on an issue, not on a pull request');
    }
    const comment = (body.comment ?? {}) as Json;
    return {
      deliveryId,
      ignored: null,
      comment: {
        type: 'review_comment',
        host: 'gitea',
        kind: 'comment',
        commentKey: `comment:${String(comment.id)}`,
        threadKey: 'conversation',
        repository,
        pullNumber: typeof issue.number === 'number' ? issue.number : null,
        pullUrl: String(issue.pull_request?.html_url ?? issue.html_url ?? ''),
        headBranch: null,
        author: String(comment.user?.login ?? body.sender?.login ?? ''),
        viaAppId: null,
        body: capText(comment.body),
        url: String(comment.html_url ?? ''),
        path: null,
        startLine: null,
        endLine: null,
        side: null,
        diffHunk: '',
      },
    };
  }
  if (
    name === 'pull_request_comment' ||
    name === 'pull_request_review_comment' ||
    fine === 'pull_request_review_comment'
  ) {
    const pr = (body.pull_request ?? {}) as Json;
    const content = String(body.review?.content ?? '');
    if (content.trim() === '') return skipComment(deliveryId, 'a review without a comment');
    // No review id in the payload: the delivery names it (a redelivery keeps its id).
    const key = `review:${String(pr.number ?? body.number)}:${deliveryId ?? ''}`;
    return {
      deliveryId,
      ignored: null,
      comment: {
        type: 'review_comment',
        host: 'gitea',
        kind: 'review',
        commentKey: key,
        threadKey: key,
        repository,
        pullNumber: typeof pr.number === 'number' ? pr.number : null,
        pullUrl: String(pr.html_url ?? ''),
        headBranch: typeof pr.head?.ref === 'string' ? pr.head.ref : null,
        author: String(body.sender?.login ?? ''),
        viaAppId: null,
        body: capText(content),
        url: String(pr.html_url ?? ''),
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

// What a code host's webhook about a comment on a pull request says, once verified and read: who
// wrote what, on which pull request (its web URL, and its head branch when the payload names
// it), in which thread, and for a comment on lines, the file and the line range. The
// review_comment trigger matches the pull request to the docwright job that opened it.
import type { AutomationCodeHost } from '../../../contract/index.ts';
import { capText } from './code-change-event.ts';

export interface ReviewCommentEvent {
  [key: string]: unknown;
  type: 'review_comment';
  host: AutomationCodeHost;
  /** review_comment: on lines of the diff; review: a submitted review's body; comment: on the conversation. */
  kind: 'review_comment' | 'review' | 'comment';
  /** The comment's kind and the host's id for it: one comment, however often it is delivered. */
  commentKey: string;
  /** The thread on the pull request it belongs to (a diff thread, a review, the conversation). */
  threadKey: string;
  /** owner/name (GitLab: the full path) of the repository the pull request is in. */
  repository: string;
  pullNumber: number | null;
  /** The pull request's web URL (what a job records as prLink). */
  pullUrl: string;
  /** The pull request's head branch, when the payload names it (GitHub's issue_comment does not). */
  headBranch: string | null;
  author: string;
  /** GitHub: the id of the GitHub App the comment was made through, if any. */
  viaAppId: string | null;
  body: string;
  /** The comment's web URL. */
  url: string;
  /** A comment on lines: the file (in the pull request's new version) and the lines, else null. */
  path: string | null;
  startLine: number | null;
  endLine: number | null;
  /** Whether the lines are in the new version of the file (RIGHT) or the old one (LEFT). */
  side: 'new' | 'old' | null;
  /** GitHub: the diff hunk the comment is on, as the payload carries it (capped). */
  diffHunk: string;
}

/** What reading one delivery gives: null when it is not a comment event (code_change reads it). */
export interface ReadReviewComment {
  deliveryId: string | null;
  comment: ReviewCommentEvent | null;
  ignored: string | null;
}

export const MAX_HUNK_CHARS = 4_000;

export const capHunk = (value: unknown): string => {
  const text = typeof value === 'string' ? value : '';
  return text.length > MAX_HUNK_CHARS ? `${text.slice(0, MAX_HUNK_CHARS)}… (cut)` : text;
};

export { capText };

export const positiveLine = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;

export const skipComment = (deliveryId: string | null, why: string): ReadReviewComment => ({
  deliveryId,
  comment: null,
  ignored: why,
});

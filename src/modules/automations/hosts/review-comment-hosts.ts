// Which host's comment reader reads a delivery.
import type { AutomationCodeHost } from '../../../contract/index.ts';
import type { ReadReviewComment } from './review-comment-event.ts';
import { readGiteaComment } from './review-comment-gitea.ts';
import { readGitHubComment } from './review-comment-github.ts';
import { readGitLabComment } from './review-comment-gitlab.ts';

type Headers = Record<string, string | string[] | undefined>;

/** The comment a verified delivery tells of; null when it is no comment event. */
export function readHostComment(
  host: AutomationCodeHost,
  headers: Headers,
  payload: unknown,
): ReadReviewComment | null {
  if (host === 'github') return readGitHubComment(headers, payload);
  if (host === 'gitlab') return readGitLabComment(headers, payload);
  return readGiteaComment(headers, payload);
}

// What a code host's webhook says, once verified and read: a merged pull request or a push into a
// branch of a repository. The prompt template sees it as {{event.*}}; the run lists its url.
import type { AutomationCodeHost } from '../../../contract/index.ts';

export interface CodeChangeEvent {
  [key: string]: unknown;
  host: AutomationCodeHost;
  kind: 'merged_pull_request' | 'push';
  /** owner/name (GitLab: the full path). */
  repository: string;
  /** The branch merged or pushed into. */
  branch: string;
  /** The pull request's number (GitLab: the merge request's iid); null for a push. */
  number: number | null;
  title: string;
  body: string;
  author: string;
  /** Web URL of the pull request, or of the pushed commit. */
  url: string;
  /** The merge commit (or the pushed head). */
  mergedCommit: string;
  labels: string[];
  /** The files a push changed (a pull request's webhook carries no file list: empty). */
  changedFiles: string[];
  /** A size-capped unified diff: empty from the webhook, filled by the worker from the code repository. */
  diff: string;
  /** Where git clones the repository, as the webhook says (http/https); null when it does not. */
  cloneUrl?: string | null;
  /** A push's previous head (what its diff is against); null for a merged pull request. */
  before?: string | null;
}

/** A URL string from a payload, or null. */
export const urlOrNull = (value: unknown): string | null =>
  typeof value === 'string' && /^https?:\/\//.test(value) ? value : null;

/** What reading one delivery gives: its id (for redeliveries) and the event, or why it is ignored. */
export interface ReadDelivery {
  deliveryId: string | null;
  event: CodeChangeEvent | null;
  ignored: string | null;
}

/** Most files and characters kept from a payload, so one push cannot make a huge prompt. */
export const MAX_CHANGED_FILES = 500;
export const MAX_TEXT_CHARS = 20_000;

export const capText = (value: unknown): string => {
  const text = typeof value === 'string' ? value : '';
  return text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}… (cut)` : text;
};

/** The files a list of push commits added, modified or removed, once each, capped. */
export function filesOfCommits(commits: unknown): string[] {
  const files = new Set<string>();
  if (!Array.isArray(commits)) return [];
  for (const commit of commits as Record<string, unknown>[]) {
    for (const list of [commit?.added, commit?.modified, commit?.removed]) {
      if (!Array.isArray(list)) continue;
      for (const file of list)
        if (typeof file === 'string' && files.size < MAX_CHANGED_FILES) files.add(file);
    }
  }
  return [...files];
}

export const branchOfRef = (ref: unknown): string | null =>
  typeof ref === 'string' && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;

export const ignored = (deliveryId: string | null, why: string): ReadDelivery => ({
  deliveryId,
  event: null,
  ignored: why,
});

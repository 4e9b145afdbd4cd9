// GitLab's webhooks: X-Gitlab-Token carries the secret itself (GitLab does not sign), compared in
// constant time; X-Gitlab-Event-UUID names the delivery (Idempotency-Key on newer GitLab, kept
// across retries, is preferred). Read: Merge Request Hook (action merge) and Push Hook.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  branchOfRef,
  capText,
  filesOfCommits,
  ignored,
  type ReadDelivery,
  urlOrNull,
} from './code-change-event.ts';
import { type Headers, header } from './headers.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function verifyGitLab(secret: string, headers: Headers): boolean {
  const token = header(headers, 'x-gitlab-token');
  // Hashes of equal length: the comparison takes the same time whatever the token's length.
  return token !== null && timingSafeEqual(digest(token), digest(secret));
}

// biome-ignore lint/suspicious/noExplicitAny: GitLab publishes no payload types; every field read is converted with String() or checked
type Json = Record<string, any>;

export function readGitLab(headers: Headers, payload: unknown): ReadDelivery {
  const deliveryId = header(headers, 'idempotency-key') ?? header(headers, 'x-gitlab-event-uuid');
  const name = header(headers, 'x-gitlab-event');
  const body = (payload ?? {}) as Json;
  const repository = String(body.project?.path_with_namespace ?? '');
  if (name === 'Merge Request Hook') {
    const mr = (body.object_attributes ?? {}) as Json;
    if (mr.action !== 'merge')
      return ignored(deliveryId, `merge request ${String(mr.action)} without a merge`);
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'gitlab',
        kind: 'merged_pull_request',
        repository,
        branch: String(mr.target_branch ?? ''),
        number: typeof mr.iid === 'number' ? mr.iid : null,
        title: capText(mr.title),
        body: capText(mr.description),
        author: String(body.user?.username ?? ''),
        url: String(mr.url ?? ''),
        mergedCommit: String(mr.merge_commit_sha ?? mr.last_commit?.id ?? ''),
        labels: Array.isArray(body.labels)
          ? body.labels.map((label: Json) => String(label?.title ?? ''))
          : [],
        changedFiles: [],
        diff: '',
        cloneUrl: urlOrNull(body.project?.git_http_url),
        before: null,
      },
    };
  }
  if (name === 'Push Hook') {
    const branch = branchOfRef(body.ref);
    if (branch === null || /^0+$/.test(String(body.after ?? ''))) {
      return ignored(deliveryId, 'push that is not to a branch, or deletes it');
    }
    const head = Array.isArray(body.commits) ? body.commits.at(-1) : null;
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'gitlab',
        kind: 'push',
        repository,
        branch,
        number: null,
        title: capText(String(head?.title ?? head?.message ?? '').split('\n')[0]),
        body: capText(head?.message),
        author: String(body.user_username ?? ''),
        url: String(head?.url ?? body.project?.web_url ?? ''),
        mergedCommit: String(body.after ?? ''),
        labels: [],
        changedFiles: filesOfCommits(body.commits),
        diff: '',
        cloneUrl: urlOrNull(body.project?.git_http_url),
        before: typeof body.before === 'string' ? body.before : null,
      },
    };
  }
  return ignored(deliveryId, `event ${name ?? '(none)'} is not one automations read`);
}

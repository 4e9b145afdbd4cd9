// Gitea's (and Forgejo's) webhooks: X-Gitea-Signature is the hex HMAC-SHA256 of the raw body
// with the secret; X-Gitea-Delivery names the delivery. Read: pull_request (closed and merged)
// and push, whose payloads follow GitHub's shape closely.
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  branchOfRef,
  capText,
  filesOfCommits,
  ignored,
  type ReadDelivery,
  urlOrNull,
} from './code-change-event.ts';
import { type Headers, header } from './headers.ts';

export function verifyGitea(secret: string, rawBody: string, headers: Headers): boolean {
  const signature = header(headers, 'x-gitea-signature') ?? header(headers, 'x-forgejo-signature');
  if (signature === null || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

// biome-ignore lint/suspicious/noExplicitAny: gitea-js has no webhook payload types; every field read is converted with String() or checked
type Json = Record<string, any>;

export function readGitea(headers: Headers, payload: unknown): ReadDelivery {
  const deliveryId = header(headers, 'x-gitea-delivery') ?? header(headers, 'x-forgejo-delivery');
  const name = header(headers, 'x-gitea-event') ?? header(headers, 'x-forgejo-event');
  const body = (payload ?? {}) as Json;
  const repository = String(body.repository?.full_name ?? '');
  if (name === 'pull_request') {
    const pr = (body.pull_request ?? {}) as Json;
    if (body.action !== 'closed' || pr.merged !== true) {
      return ignored(deliveryId, `pull_request ${String(body.action)} without a merge`);
    }
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'gitea',
        kind: 'merged_pull_request',
        repository,
        branch: String(pr.base?.ref ?? ''),
        number: typeof pr.number === 'number' ? pr.number : null,
        title: capText(pr.title),
        body: capText(pr.body),
        author: String(pr.user?.login ?? ''),
        url: String(pr.html_url ?? ''),
        mergedCommit: String(pr.merge_commit_sha ?? pr.head?.sha ?? ''),
        labels: Array.isArray(pr.labels) ? pr.labels.map((label: Json) => String(label?.name ?? '')) : [],
        changedFiles: [],
        diff: '',
        cloneUrl: urlOrNull(body.repository?.clone_url),
        before: null,
      },
    };
  }
  if (name === 'push') {
    const branch = branchOfRef(body.ref);
    if (branch === null || /^0+$/.test(String(body.after ?? ''))) {
      return ignored(deliveryId, 'push that is not to a branch, or deletes it');
    }
    const head = body.head_commit ?? (Array.isArray(body.commits) ? body.commits.at(-1) : null);
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'gitea',
        kind: 'push',
        repository,
        branch,
        number: null,
        title: capText(String(head?.message ?? '').split('\n')[0]),
        body: capText(head?.message),
        author: String(body.pusher?.login ?? body.sender?.login ?? ''),
        url: String(head?.url ?? body.compare_url ?? ''),
        mergedCommit: String(body.after ?? ''),
        labels: [],
        changedFiles: filesOfCommits(body.commits),
        diff: '',
        cloneUrl: urlOrNull(body.repository?.clone_url),
        before: typeof body.before === 'string' ? body.before : null,
      },
    };
  }
  return ignored(deliveryId, `event ${name ?? '(none)'} is not one automations read`);
}

// GitHub's webhooks: X-Hub-Signature-256 (HMAC-SHA256 of the raw body) verified by
// @octokit/webhooks; X-GitHub-Delivery names the delivery (a redelivery keeps it); the events
// read are pull_request (closed and merged) and push. Payload types are @octokit/webhooks'.
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import { Webhooks } from '@octokit/webhooks';
import {
  branchOfRef,
  capText,
  filesOfCommits,
  ignored,
  type ReadDelivery,
  urlOrNull,
} from './code-change-event.ts';
import { type Headers, header } from './headers.ts';

/** One verifier per secret: making one builds an event handler, which a burst need not pay each time. */
const verifiers = new Map<string, Webhooks>();

function verifierOf(secret: string): Webhooks {
  let verifier = verifiers.get(secret);
  if (verifier === undefined) {
    if (verifiers.size >= 1_000) verifiers.clear();
    verifier = new Webhooks({ secret });
    verifiers.set(secret, verifier);
  }
  return verifier;
}

export async function verifyGitHub(secret: string, rawBody: string, headers: Headers): Promise<boolean> {
  const signature = header(headers, 'x-hub-signature-256');
  if (signature === null) return false;
  try {
    return await verifierOf(secret).verify(rawBody, signature);
  } catch {
    return false; // a malformed signature header
  }
}

export function readGitHub(headers: Headers, payload: unknown): ReadDelivery {
  const deliveryId = header(headers, 'x-github-delivery');
  const name = header(headers, 'x-github-event');
  if (name === 'pull_request') {
    const event = payload as EmitterWebhookEvent<'pull_request.closed'>['payload'];
    if (event.action !== 'closed' || !event.pull_request?.merged) {
      return ignored(deliveryId, `pull_request ${String(event.action)} without a merge`);
    }
    const pr = event.pull_request;
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'github',
        kind: 'merged_pull_request',
        repository: event.repository.full_name,
        branch: pr.base.ref,
        number: pr.number,
        title: capText(pr.title),
        body: capText(pr.body),
        author: pr.user?.login ?? '',
        url: pr.html_url,
        mergedCommit: pr.merge_commit_sha ?? pr.head.sha,
        labels: (pr.labels ?? []).map((label) => label.name),
        changedFiles: [],
        diff: '',
        cloneUrl: urlOrNull(event.repository.clone_url),
        before: null,
      },
    };
  }
  if (name === 'push') {
    const event = payload as EmitterWebhookEvent<'push'>['payload'];
    const branch = branchOfRef(event.ref);
    if (branch === null || event.deleted)
      return ignored(deliveryId, 'push that is not to a branch, or deletes it');
    return {
      deliveryId,
      ignored: null,
      event: {
        host: 'github',
        kind: 'push',
        repository: event.repository.full_name,
        branch,
        number: null,
        title: capText(event.head_commit?.message.split('\n')[0]),
        body: capText(event.head_commit?.message),
        author: event.pusher?.name ?? event.sender?.login ?? '',
        url: event.head_commit?.url ?? event.compare,
        mergedCommit: event.after,
        labels: [],
        changedFiles: filesOfCommits(event.commits),
        diff: '',
        cloneUrl: urlOrNull(event.repository.clone_url),
        before: event.before ?? null,
      },
    };
  }
  return ignored(deliveryId, `event ${name ?? '(none)'} is not one automations read`);
}

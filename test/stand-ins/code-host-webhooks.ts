// The code hosts' side of their webhooks to docwright: each host's headers, signed the way that
// host signs (GitHub through @octokit/webhooks' own sign, Gitea's hex HMAC, GitLab's token), sent
// over real HTTP to a running docwright (or through inject for route tests).
import { createHmac, randomUUID } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';

export interface SignedDelivery {
  headers: Record<string, string>;
  body: string;
}

export async function githubDelivery(
  secret: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): Promise<SignedDelivery> {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': await new Webhooks({ secret }).sign(body),
    },
  };
}

export function gitlabDelivery(
  token: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): SignedDelivery {
  return {
    body: JSON.stringify(payload),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitLab/fake',
      'x-gitlab-event': event,
      'x-gitlab-event-uuid': deliveryId,
      'x-gitlab-token': token,
    },
  };
}

export function giteaDelivery(
  secret: string,
  event: string,
  payload: unknown,
  deliveryId: string = randomUUID(),
): SignedDelivery {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Go-http-client/fake',
      'x-gitea-event': event,
      'x-gitea-delivery': deliveryId,
      'x-gitea-signature': createHmac('sha256', secret).update(body).digest('hex'),
    },
  };
}

/** GitLab's Merge Request Hook for a merge. */
export function gitlabMergePayload(input: {
  path: string;
  iid: number;
  title: string;
  description: string;
  target: string;
  mergeCommitSha: string;
  webUrl: string;
}): Record<string, unknown> {
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, name: 'Contributor', username: 'contributor' },
    project: { id: 7, path_with_namespace: input.path, web_url: `${input.webUrl}/${input.path}` },
    object_attributes: {
      iid: input.iid,
      title: input.title,
      description: input.description,
      target_branch: input.target,
      state: 'merged',
      action: 'merge',
      merge_commit_sha: input.mergeCommitSha,
      url: `${input.webUrl}/${input.path}/-/merge_requests/${input.iid}`,
    },
    labels: [],
  };
}

/** Gitea's pull_request webhook for a merge. */
export function giteaMergePayload(input: {
  fullName: string;
  number: number;
  title: string;
  body: string;
  base: string;
  mergeCommitSha: string;
  webUrl: string;
}): Record<string, unknown> {
  return {
    action: 'closed',
    number: input.number,
    pull_request: {
      number: input.number,
      title: input.title,
      body: input.body,
      merged: true,
      merge_commit_sha: input.mergeCommitSha,
      user: { login: 'contributor' },
      base: { ref: input.base },
      head: { ref: 'feature', sha: input.mergeCommitSha },
      html_url: `${input.webUrl}/${input.fullName}/pulls/${input.number}`,
      labels: [],
    },
    repository: { full_name: input.fullName },
    sender: { login: 'contributor' },
  };
}

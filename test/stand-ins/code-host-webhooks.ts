// The code hosts' side of their webhooks to docwright: each host's headers, signed the way that
// host signs (GitHub through @octokit/webhooks' own sign, Gitea's hex HMAC, GitLab's token), sent
// over real HTTP to a running docwright (or through inject for route tests). Payloads: merges
// (GitLab's Merge Request Hook, Gitea's pull_request) and comments on pull requests (GitLab's
// Note Hook, Gitea's issue_comment and review payloads, built from the hosts' webhook docs and
// Gitea's api.IssueCommentPayload / api.PullRequestPayload); GitHub's come from the GitHub fake.
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
  eventType: string = event,
): SignedDelivery {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Go-http-client/fake',
      'x-gitea-event': event,
      'x-gitea-event-type': eventType,
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
    project: {
      id: 7,
      path_with_namespace: input.path,
      web_url: `${input.webUrl}/${input.path}`,
      git_http_url: `${input.webUrl}/${input.path}.git`,
    },
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
    repository: { full_name: input.fullName, clone_url: `${input.webUrl}/${input.fullName}.git` },
    sender: { login: 'contributor' },
  };
}

/**
 * GitLab's Note Hook for a comment on a merge request (GitLab's webhook events documentation,
 * "Comment events", merge request comment): with `line`, a note on the diff (a DiffNote) whose
 * position names the file and the line, or with `startLine` a line_range.
 */
export function gitlabNotePayload(input: {
  path: string;
  webUrl: string;
  iid: number;
  sourceBranch: string;
  noteId: number;
  note: string;
  author?: string;
  discussionId?: string;
  file?: { path: string; line: number; startLine?: number };
}): Record<string, unknown> {
  const mrUrl = `${input.webUrl}/${input.path}/-/merge_requests/${input.iid}`;
  const point = (line: number) => ({
    line_code: `abc_${line}_${line}`,
    type: 'new',
    old_line: null,
    new_line: line,
  });
  const position =
    input.file === undefined
      ? null
      : {
          base_sha: 'a'.repeat(40),
          start_sha: 'a'.repeat(40),
          head_sha: 'b'.repeat(40),
          old_path: input.file.path,
          new_path: input.file.path,
          position_type: 'text',
          old_line: null,
          new_line: input.file.line,
          line_range:
            input.file.startLine === undefined
              ? null
              : { start: point(input.file.startLine), end: point(input.file.line) },
        };
  return {
    object_kind: 'note',
    event_type: 'note',
    user: { id: 3, name: 'Reviewer', username: input.author ?? 'reviewer', avatar_url: null },
    project_id: 7,
    project: {
      id: 7,
      name: input.path.split('/').at(-1),
      web_url: `${input.webUrl}/${input.path}`,
      path_with_namespace: input.path,
      default_branch: 'main',
    },
    object_attributes: {
      id: input.noteId,
      note: input.note,
      noteable_type: 'MergeRequest',
      author_id: 3,
      created_at: '2026-01-01 10:00:00 UTC',
      updated_at: '2026-01-01 10:00:00 UTC',
      project_id: 7,
      noteable_id: 70 + input.iid,
      system: false,
      action: 'create',
      discussion_id: input.discussionId ?? `d${input.noteId}`,
      type: position === null ? null : 'DiffNote',
      position,
      url: `${mrUrl}#note_${input.noteId}`,
    },
    merge_request: {
      id: 70 + input.iid,
      iid: input.iid,
      source_branch: input.sourceBranch,
      target_branch: 'main',
      source_project_id: 7,
      target_project_id: 7,
      state: 'opened',
      title: 'Docs change',
      url: mrUrl,
    },
  };
}

/**
 * Gitea's issue_comment payload (an IssueCommentPayload) for a comment on a pull request's
 * conversation: is_pull true, the issue with its pull_request part.
 */
export function giteaCommentPayload(input: {
  fullName: string;
  webUrl: string;
  number: number;
  commentId: number;
  body: string;
  author?: string;
}): Record<string, unknown> {
  const pullUrl = `${input.webUrl}/${input.fullName}/pulls/${input.number}`;
  const user = { id: 3, login: input.author ?? 'reviewer', full_name: '', email: 'r@example.invalid' };
  return {
    action: 'created',
    issue: {
      id: 900 + input.number,
      url: `${input.webUrl}/api/v1/repos/${input.fullName}/issues/${input.number}`,
      html_url: pullUrl,
      number: input.number,
      user: { id: 7, login: 'docwright-bot' },
      title: 'Docs change',
      body: '',
      state: 'open',
      pull_request: { merged: false, merged_at: null, html_url: pullUrl },
    },
    comment: {
      id: input.commentId,
      html_url: `${pullUrl}#issuecomment-${input.commentId}`,
      pull_request_url: pullUrl,
      issue_url: '',
      user,
      body: input.body,
      created_at: '2026-01-01T10:00:00Z',
      updated_at: '2026-01-01T10:00:00Z',
    },
    repository: { id: 5, full_name: input.fullName, html_url: `${input.webUrl}/${input.fullName}` },
    sender: user,
    is_pull: true,
  };
}

/**
 * Gitea's payload for a submitted review with a comment (X-Gitea-Event pull_request_comment,
 * X-Gitea-Event-Type pull_request_review_comment): a PullRequestPayload with action reviewed and
 * review.content.
 */
export function giteaReviewPayload(input: {
  fullName: string;
  webUrl: string;
  number: number;
  head: string;
  content: string;
  author?: string;
}): Record<string, unknown> {
  const user = { id: 3, login: input.author ?? 'reviewer' };
  return {
    action: 'reviewed',
    number: input.number,
    pull_request: {
      id: 900 + input.number,
      number: input.number,
      title: 'Docs change',
      html_url: `${input.webUrl}/${input.fullName}/pulls/${input.number}`,
      head: { ref: input.head, sha: 'b'.repeat(40) },
      base: { ref: 'main', sha: 'a'.repeat(40) },
      merged: false,
      user: { id: 7, login: 'docwright-bot' },
    },
    repository: { id: 5, full_name: input.fullName },
    sender: user,
    review: { type: 'pull_request_review_comment', content: input.content },
  };
}

/**
 * GitLab's Pipeline Hook (GitLab's webhook events documentation, "Pipeline events"): sent when a
 * pipeline is created and each time its status changes; object_attributes carries the commit.
 */
export function gitlabPipelinePayload(input: {
  path: string;
  pipelineId: number;
  iid: number;
  sha: string;
  ref: string;
  status: 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';
  webUrl: string;
  jobs?: { id: number; name: string; status: string }[];
}): Record<string, unknown> {
  const now = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const finished = !['created', 'pending', 'running'].includes(input.status);
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: input.pipelineId,
      iid: input.iid,
      name: null,
      ref: input.ref,
      tag: false,
      sha: input.sha,
      before_sha: '0000000000000000000000000000000000000000',
      source: 'push',
      status: input.status,
      detailed_status: input.status,
      stages: ['test'],
      created_at: now,
      finished_at: finished ? now : null,
      duration: finished ? 12 : null,
      queued_duration: 1,
      variables: [],
      url: `${input.webUrl}/${input.path}/-/pipelines/${input.pipelineId}`,
    },
    merge_request: null,
    user: { id: 1, name: 'Docwright', username: 'docwright', avatar_url: null, email: '[REDACTED]' },
    project: {
      id: 7,
      name: input.path.split('/').at(-1),
      description: null,
      web_url: `${input.webUrl}/${input.path}`,
      avatar_url: null,
      git_ssh_url: `git@gitlab.example.test:${input.path}.git`,
      git_http_url: `${input.webUrl}/${input.path}.git`,
      namespace: input.path.split('/')[0],
      visibility_level: 0,
      path_with_namespace: input.path,
      default_branch: 'main',
    },
    commit: {
      id: input.sha,
      message: 'Update the docs',
      title: 'Update the docs',
      timestamp: new Date().toISOString(),
      url: `${input.webUrl}/${input.path}/-/commit/${input.sha}`,
      author: { name: 'Docwright', email: 'docwright@example.test' },
    },
    builds: (input.jobs ?? []).map((job) => ({
      id: job.id,
      stage: 'test',
      name: job.name,
      status: job.status,
      created_at: now,
      started_at: now,
      finished_at: finished ? now : null,
      duration: finished ? 10 : null,
      when: 'on_success',
      manual: false,
      allow_failure: false,
      user: { id: 1, name: 'Docwright', username: 'docwright' },
      runner: null,
      artifacts_file: { filename: null, size: null },
      environment: null,
    })),
  };
}

/**
 * Gitea's status webhook (X-Gitea-Event: status; Gitea's api.CommitStatusPayload): sent when a
 * commit status is created, by Gitea Actions or an external CI through the statuses API.
 */
export function giteaStatusPayload(input: {
  fullName: string;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'error' | 'failure' | 'warning';
  description: string;
  targetUrl: string;
  webUrl: string;
}): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    commit: {
      id: input.sha,
      message: 'Update the docs\n',
      url: `${input.webUrl}/${input.fullName}/commit/${input.sha}`,
      author: { name: 'docwright', email: 'docwright@example.test', username: '' },
      committer: { name: 'docwright', email: 'docwright@example.test', username: '' },
      verification: null,
      timestamp: now,
      added: null,
      removed: null,
      modified: null,
    },
    context: input.context,
    created_at: now,
    description: input.description,
    id: 31,
    repository: {
      id: 1,
      full_name: input.fullName,
      html_url: `${input.webUrl}/${input.fullName}`,
      clone_url: `${input.webUrl}/${input.fullName}.git`,
      default_branch: 'main',
    },
    sender: { id: 2, login: 'ci-bot', username: 'ci-bot' },
    sha: input.sha,
    state: input.state,
    target_url: input.targetUrl,
    updated_at: now,
  };
}

// The code hosts' CI webhooks, read only for the commit they name: GitHub check_run and
// check_suite ("completed") and status, GitLab's Pipeline Hook, Gitea's status. They make the CI
// watch of that commit poll now (docs/ci-follow-up.md); what they say about the result is not
// used, since the poll reads the host itself. A state that is not final yet (queued, running,
// pending) asks for nothing: the watch waits for the end anyway.
import type { AutomationCodeHost } from '../../../contract/index.ts';
import { type Headers, header } from './headers.ts';

/** A CI event: the commit it is about, or why it asks for nothing. Null: not a CI event. */
export type HostCiEvent = { sha: string; ignored: null } | { sha: string | null; ignored: string };

const field = (value: unknown, ...path: string[]): unknown => {
  let at = value;
  for (const key of path)
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return at;
};
const SHA = /^[0-9a-f]{7,64}$/i;

function event(sha: unknown, state: unknown, final: readonly string[], what: string): HostCiEvent {
  if (typeof sha !== 'string' || !SHA.test(sha))
    return { sha: null, ignored: `${what} without a commit sha` };
  if (typeof state !== 'string' || !final.includes(state)) {
    return { sha, ignored: `${what} not finished (${String(state)}): the watch waits for its end` };
  }
  return { sha: sha.toLowerCase(), ignored: null };
}

const GITHUB_STATUS_FINAL = ['success', 'failure', 'error'] as const;
const GITLAB_PIPELINE_FINAL = ['success', 'failed', 'canceled', 'skipped', 'manual'] as const;
const GITEA_STATUS_FINAL = ['success', 'failure', 'error', 'warning'] as const;

export function readHostCiEvent(
  host: AutomationCodeHost,
  headers: Headers,
  payload: unknown,
): HostCiEvent | null {
  if (host === 'github') {
    const name = header(headers, 'x-github-event');
    if (name === 'check_run') {
      return event(
        field(payload, 'check_run', 'head_sha'),
        field(payload, 'action'),
        ['completed'],
        'check_run',
      );
    }
    if (name === 'check_suite') {
      return event(
        field(payload, 'check_suite', 'head_sha'),
        field(payload, 'action'),
        ['completed'],
        'check_suite',
      );
    }
    if (name === 'status') {
      return event(field(payload, 'sha'), field(payload, 'state'), GITHUB_STATUS_FINAL, 'status');
    }
    return null;
  }
  if (host === 'gitlab') {
    if (
      header(headers, 'x-gitlab-event') !== 'Pipeline Hook' &&
      field(payload, 'object_kind') !== 'pipeline'
    ) {
      return null;
    }
    return event(
      field(payload, 'object_attributes', 'sha'),
      field(payload, 'object_attributes', 'status'),
      GITLAB_PIPELINE_FINAL,
      'pipeline',
    );
  }
  if ((header(headers, 'x-gitea-event') ?? header(headers, 'x-forgejo-event')) !== 'status') return null;
  return event(field(payload, 'sha'), field(payload, 'state'), GITEA_STATUS_FINAL, 'status');
}

// What the job runner needs from a code host, whichever it is: open (or update) the pull request
// for a pushed branch, tell git how to authenticate, and name the default branch. The GitHub,
// GitLab and Gitea adapters implement this and import nothing else of docwright: no database, no
// modules. createCodeHost() in factory.ts picks the adapter.

export type { CiCheck, CiStatus, CiStatusInput } from './ci.ts';
export { CodeHostError, type CodeHostFailureCode } from './errors.ts';
export type { RetryPolicy } from './retry.ts';

import type { CiStatus, CiStatusInput } from './ci.ts';
import type { RetryPolicy } from './retry.ts';

export type CodeHostKind = 'github' | 'gitlab' | 'gitea';

export type CodeHostCredentials =
  /** A personal (or project/group, or fine-grained) access token. */
  | { type: 'token'; token: string }
  /** GitHub only: a GitHub App installation; the adapter exchanges a signed JWT for an installation token. */
  | { type: 'github-app'; appId: string; privateKey: string; installationId: string };

export interface CodeHostOptions {
  kind: CodeHostKind;
  /**
   * The host's web address, e.g. https://github.example.com for GitHub Enterprise Server or
   * https://gitlab.example.com/gitlab for a GitLab under a path. Absent: the origin of each
   * repository URL (github.com means https://api.github.com). An address that already ends in the
   * host's API path (/api/v3, /api/v4, /api/v1) is accepted too.
   */
  baseUrl?: string | null;
  /** The API root to call, used as is; overrides what baseUrl implies (proxies, tests). */
  apiUrl?: string | null;
  credentials: CodeHostCredentials;
  /** Retries of 429 and 5xx answers; defaults in retry.ts. */
  retry?: Partial<RetryPolicy>;
  /** Gives up on one HTTP request after this long. Default 30 s. */
  requestTimeoutMs?: number;
}

export interface PullRequestInput {
  /** The project's repository URL (http or https), e.g. https://github.com/acme/docs. */
  repositoryUrl: string;
  /** The pushed branch with the changes. */
  head: string;
  /** The branch to merge into. */
  base: string;
  title: string;
  body: string;
  /** Open as a draft. Applies when the pull request is created; a reused one keeps its state. */
  draft: boolean;
  /**
   * The head branch was not on the host before this job pushed it, so no pull request can be
   * open for it: the lookup for one is skipped and the pull request created at once (one request
   * instead of two). Should one exist all the same, the host's "already exists" answer still
   * leads to it, as after a lookup that missed it.
   */
  headIsNew?: boolean;
  /** Aborts the HTTP calls (job cancelled, worker shutting down). */
  signal?: AbortSignal;
}

export interface PullRequestResult {
  /** The pull request's web page (GitHub html_url, GitLab web_url, Gitea html_url): the job's prLink. */
  url: string;
  /** GitHub and Gitea number, GitLab iid: what people write as #12 or !12. */
  number: number;
  /** True when an open pull request for the same head branch existed and was updated. */
  reused: boolean;
}

export interface CodeHost {
  readonly kind: CodeHostKind;
  /**
   * Opens a pull request from head into base, or, when one is already open for head, updates its
   * title and body and returns it. Throws CodeHostError (code_host_auth or pr_failed).
   */
  openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestResult>;
  /** The repository's default branch. Throws CodeHostError. */
  defaultBranch(repositoryUrl: string, signal?: AbortSignal): Promise<string>;
  /**
   * The complete header line git must send to this host to push and fetch over HTTP, for
   * `http.extraHeader` (set through GIT_CONFIG_* variables, never argv): "Authorization: Basic ...".
   * For a GitHub App this fetches (or reuses) an installation token.
   */
  gitAuthHeader(signal?: AbortSignal): Promise<string>;
  /**
   * The CI status of a commit (GitHub check runs and commit statuses, GitLab's latest pipeline
   * for it, Gitea commit statuses), with what the host says about failed checks (ci.ts).
   * Throws CodeHostError.
   */
  ciStatus(input: CiStatusInput): Promise<CiStatus>;
}

// GitHub and GitHub Enterprise (Server and Cloud) through Octokit's REST client.
//
// Operations used (GitHub REST API, "Pulls" and "Repositories"; the tests check them against the
// official OpenAPI description): GET /repos/{owner}/{repo}/pulls?head=owner:branch&state=open,
// POST /repos/{owner}/{repo}/pulls, PATCH /repos/{owner}/{repo}/pulls/{number},
// GET /repos/{owner}/{repo}, and for Apps POST /app/installations/{id}/access_tokens; for CI
// status (ci-status.ts) GET /repos/{owner}/{repo}/commits/{ref}/check-runs and .../status.
import type { Octokit } from '@octokit/rest';
import { type CiStatus, type CiStatusInput, scrubCiStatus } from '../ci.ts';
import type { CodeHost, CodeHostOptions, PullRequestInput, PullRequestResult } from '../contract.ts';
import { CodeHostError, SecretScrubber } from '../errors.ts';
import { basicAuthorization, githubApiUrl, locateRepository, webBaseOf } from '../locations.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from '../retry.ts';
import { requestSignal } from '../signals.ts';
import { InstallationTokens } from './app-token.ts';
import { readGitHubCiStatus } from './ci-status.ts';
import { createOctokit } from './octokit-client.ts';
import { toCodeHostError } from './octokit-errors.ts';

/** GitHub refuses bodies over 65,536 characters; keep well inside and say so. */
const MAX_BODY_CHARS = 60_000;

interface Target {
  apiUrl: string;
  owner: string;
  repo: string;
}

export class GitHubCodeHost implements CodeHost {
  readonly kind = 'github' as const;
  readonly #options: CodeHostOptions;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #scrubber = new SecretScrubber();
  /** One token cache per API root (an App can be asked about repositories on one host only, in practice). */
  readonly #installations = new Map<string, InstallationTokens>();

  constructor(options: CodeHostOptions) {
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    if (options.credentials.type === 'token') this.#addTokenSecrets(options.credentials.token);
  }

  async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestResult> {
    const target = this.#target(input.repositoryUrl);
    const { owner, repo } = target;
    const body = truncateBody(input.body);
    const existing = input.headIsNew ? null : await this.#findOpenPull(target, input.head, input.signal);
    if (existing) return this.#update(target, existing, input.title, body, input.signal);

    try {
      const created = await this.#call(
        target,
        `open a pull request from ${input.head} into ${input.base} in ${owner}/${repo}`,
        input.signal,
        (octokit, request) =>
          octokit.rest.pulls.create({
            owner,
            repo,
            head: input.head,
            base: input.base,
            title: input.title,
            body,
            draft: input.draft,
            request,
          }),
      );
      return { url: created.data.html_url, number: created.data.number, reused: false };
    } catch (error) {
      // Someone (an earlier try of this job, whose answer was lost) opened it meanwhile.
      if (error instanceof CodeHostError && error.status === 422) {
        const again = await this.#findOpenPull(target, input.head, input.signal);
        if (again) return this.#update(target, again, input.title, body, input.signal);
      }
      throw error;
    }
  }

  async defaultBranch(repositoryUrl: string, signal?: AbortSignal): Promise<string> {
    const target = this.#target(repositoryUrl);
    const { owner, repo } = target;
    const { data } = await this.#call(
      target,
      `read repository ${owner}/${repo}`,
      signal,
      (octokit, request) => octokit.rest.repos.get({ owner, repo, request }),
    );
    return data.default_branch;
  }

  async gitAuthHeader(signal?: AbortSignal): Promise<string> {
    const token = await withRetries(this.#retry, signal, () => this.#token(this.#defaultApiUrl(), signal));
    // GitHub's documented way to use a token (personal or installation) as git credentials.
    return `Authorization: ${basicAuthorization('x-access-token', token)}`;
  }

  async ciStatus(input: CiStatusInput): Promise<CiStatus> {
    const target = this.#target(input.repositoryUrl);
    const status = await readGitHubCiStatus(
      (action, send) => this.#call(target, action, input.signal, send),
      target.owner,
      target.repo,
      input.sha,
    );
    return scrubCiStatus(status, (text) => this.#scrubber.scrub(text));
  }

  #target(repositoryUrl: string): Target {
    const { webBase, segments } = locateRepository('github', repositoryUrl, this.#options.baseUrl);
    const apiUrl = this.#options.apiUrl?.replace(/\/+$/, '') || githubApiUrl(webBase);
    return { apiUrl, owner: segments[0]!, repo: segments[1]! };
  }

  /** The API root when no repository URL is at hand (gitAuthHeader). */
  #defaultApiUrl(): string {
    if (this.#options.apiUrl) return this.#options.apiUrl.replace(/\/+$/, '');
    return this.#options.baseUrl
      ? githubApiUrl(webBaseOf('github', this.#options.baseUrl))
      : 'https://api.github.com';
  }

  #addTokenSecrets(token: string): void {
    this.#scrubber.add(token);
    this.#scrubber.add(basicAuthorization('x-access-token', token).slice('Basic '.length));
  }

  async #token(apiUrl: string, signal: AbortSignal | undefined): Promise<string> {
    const credentials = this.#options.credentials;
    if (credentials.type === 'token') return credentials.token;
    let tokens = this.#installations.get(apiUrl);
    if (!tokens) {
      tokens = new InstallationTokens(credentials, apiUrl, this.#scrubber, this.#timeoutMs);
      this.#installations.set(apiUrl, tokens);
    }
    const token = await tokens.token(signal);
    this.#addTokenSecrets(token);
    return token;
  }

  /** One API request, with a fresh client (the token may have been renewed), retries, and mapped errors. */
  #call<T>(
    target: Target,
    action: string,
    signal: AbortSignal | undefined,
    send: (octokit: Octokit, request: { signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    return withRetries(this.#retry, signal, async () => {
      const token = await this.#token(target.apiUrl, signal);
      try {
        return await send(createOctokit(target.apiUrl, token), {
          signal: requestSignal(signal, this.#timeoutMs),
        });
      } catch (error) {
        const failure = toCodeHostError(error, { scrubber: this.#scrubber, action, apiUrl: target.apiUrl });
        // A revoked installation token: the next try (a later job) fetches a new one.
        if (failure.status === 401) this.#installations.get(target.apiUrl)?.invalidate();
        throw failure;
      }
    });
  }

  async #findOpenPull(
    target: Target,
    head: string,
    signal: AbortSignal | undefined,
  ): Promise<{ number: number; title: string; body: string | null; html_url: string } | undefined> {
    const { owner, repo } = target;
    const { data } = await this.#call(
      target,
      `look up open pull requests for branch ${head} in ${owner}/${repo}`,
      signal,
      (octokit, request) =>
        octokit.rest.pulls.list({
          owner,
          repo,
          state: 'open',
          head: `${owner}:${head}`,
          per_page: 100,
          request,
        }),
    );
    return data.find((pull) => pull.head.ref === head);
  }

  async #update(
    target: Target,
    pull: { number: number; title: string; body: string | null; html_url: string },
    title: string,
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<PullRequestResult> {
    const { owner, repo } = target;
    if (pull.title === title && (pull.body ?? '') === body) {
      return { url: pull.html_url, number: pull.number, reused: true };
    }
    const { data } = await this.#call(
      target,
      `update pull request #${pull.number} in ${owner}/${repo}`,
      signal,
      (octokit, request) =>
        octokit.rest.pulls.update({ owner, repo, pull_number: pull.number, title, body, request }),
    );
    return { url: data.html_url, number: data.number, reused: true };
  }
}

function truncateBody(body: string): string {
  if (body.length <= MAX_BODY_CHARS) return body;
  return `${body.slice(0, MAX_BODY_CHARS)}\n\n… (truncated: GitHub limits a pull request description's length)`;
}

// Gitea and Forgejo through gitea-js (a fetch-based client generated from Gitea's swagger).
//
// Operations used (Gitea API v1): GET /repos/{owner}/{repo}/pulls?state=open (paged), POST
// /repos/{owner}/{repo}/pulls, PATCH /repos/{owner}/{repo}/pulls/{index}, GET /repos/{owner}/{repo};
// for CI status (ci-status.ts) GET /repos/{owner}/{repo}/commits/{ref}/status.
// A draft is a pull request whose title starts with "WIP: " (Gitea's default work-in-progress
// prefix), as the API has no draft field on creation.
import { giteaApi } from 'gitea-js';
import { type CiStatus, type CiStatusInput, scrubCiStatus } from '../ci.ts';
import type { CodeHost, CodeHostOptions, PullRequestInput, PullRequestResult } from '../contract.ts';
import { CodeHostError, SecretScrubber } from '../errors.ts';
import { basicAuthorization, locateRepository, rootBelowApi } from '../locations.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from '../retry.ts';
import { requestSignal } from '../signals.ts';
import { readGiteaCiStatus } from './ci-status.ts';
import { toCodeHostError } from './gitea-errors.ts';

type GiteaClient = ReturnType<typeof giteaApi>;

interface OpenPull {
  number: number;
  title: string;
  body: string;
  html_url: string;
  draft: boolean;
}

/** Gitea's default WORK_IN_PROGRESS_PREFIXES ("WIP:", "[WIP]"), case-insensitive. */
const WIP_PREFIX = /^\s*(wip:|\[wip\])\s*/i;
const PAGE_SIZE = 50;
/** Open pull requests are read page by page; beyond this many pages the create call's 409 decides. */
const MAX_PAGES = 40;

interface Target {
  root: string;
  owner: string;
  repo: string;
}

export class GiteaCodeHost implements CodeHost {
  readonly kind = 'gitea' as const;
  readonly #options: CodeHostOptions;
  readonly #token: string;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #scrubber = new SecretScrubber();
  readonly #clients = new Map<string, GiteaClient>();

  constructor(options: CodeHostOptions) {
    if (options.credentials.type !== 'token') {
      throw new CodeHostError(
        'code_host_auth',
        'Gitea needs an access token; GitHub App credentials work only with GitHub.',
      );
    }
    this.#options = options;
    this.#token = options.credentials.token;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#scrubber.add(this.#token);
    this.#scrubber.add(basicAuthorization(this.#token, 'x-oauth-basic').slice('Basic '.length));
  }

  async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestResult> {
    const target = this.#target(input.repositoryUrl);
    const where = `${target.owner}/${target.repo}`;
    const existing = input.headIsNew ? null : await this.#findOpen(target, input.head, input.signal);
    if (existing) return this.#update(target, existing, input.title, input.body, input.signal);

    const title = input.draft ? `WIP: ${input.title}` : input.title;
    try {
      const { data } = await this.#call(
        target,
        `open a pull request from ${input.head} into ${input.base} in ${where}`,
        input.signal,
        (api, params) =>
          api.repos.repoCreatePullRequest(
            target.owner,
            target.repo,
            { head: input.head, base: input.base, title, body: input.body },
            params,
          ),
      );
      if (!data.html_url || !data.number) {
        throw new CodeHostError(
          'pr_failed',
          `Gitea opened a pull request in ${where} but did not say its number and address.`,
        );
      }
      return { url: data.html_url, number: data.number, reused: false };
    } catch (error) {
      // 409: "pull request already exists for these targets" (opened meanwhile).
      if (error instanceof CodeHostError && error.status === 409) {
        const again = await this.#findOpen(target, input.head, input.signal);
        if (again) return this.#update(target, again, input.title, input.body, input.signal);
      }
      throw error;
    }
  }

  async defaultBranch(repositoryUrl: string, signal?: AbortSignal): Promise<string> {
    const target = this.#target(repositoryUrl);
    const { data } = await this.#call(
      target,
      `read repository ${target.owner}/${target.repo}`,
      signal,
      (api, params) => api.repos.repoGet(target.owner, target.repo, params),
    );
    if (!data.default_branch) {
      throw new CodeHostError(
        'pr_failed',
        `Gitea repository ${target.owner}/${target.repo} has no default branch (is it empty?).`,
      );
    }
    return data.default_branch;
  }

  async gitAuthHeader(): Promise<string> {
    // Gitea (and Forgejo) read a Basic user name as the token when the password is empty or
    // "x-oauth-basic", so no account name is needed (services/auth/basic.go).
    return `Authorization: ${basicAuthorization(this.#token, 'x-oauth-basic')}`;
  }

  async ciStatus(input: CiStatusInput): Promise<CiStatus> {
    const target = this.#target(input.repositoryUrl);
    const status = await readGiteaCiStatus(
      (action, send) => this.#call(target, action, input.signal, send),
      target.owner,
      target.repo,
      input.sha,
    );
    return scrubCiStatus(status, (text) => this.#scrubber.scrub(text));
  }

  #target(repositoryUrl: string): Target {
    const { webBase, segments } = locateRepository('gitea', repositoryUrl, this.#options.baseUrl);
    const root = this.#options.apiUrl ? rootBelowApi('gitea', this.#options.apiUrl) : webBase;
    return { root, owner: segments[0]!, repo: segments[1]! };
  }

  #client(root: string): GiteaClient {
    let client = this.#clients.get(root);
    if (!client) {
      client = giteaApi(root, { token: this.#token });
      this.#clients.set(root, client);
    }
    return client;
  }

  #call<T>(
    target: Target,
    action: string,
    signal: AbortSignal | undefined,
    send: (api: GiteaClient, params: { signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    return withRetries(this.#retry, signal, async () => {
      try {
        return await send(this.#client(target.root), { signal: requestSignal(signal, this.#timeoutMs) });
      } catch (error) {
        throw toCodeHostError(error, { scrubber: this.#scrubber, action, apiUrl: `${target.root}/api/v1` });
      }
    });
  }

  async #findOpen(
    target: Target,
    head: string,
    signal: AbortSignal | undefined,
  ): Promise<OpenPull | undefined> {
    const where = `${target.owner}/${target.repo}`;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { data } = await this.#call(
        target,
        `look up open pull requests in ${where}`,
        signal,
        (api, params) =>
          api.repos.repoListPullRequests(
            target.owner,
            target.repo,
            { state: 'open', page, limit: PAGE_SIZE },
            params,
          ),
      );
      const found = data.find(
        (pull) =>
          pull.head?.ref === head &&
          (pull.head?.repo_id === undefined || pull.head.repo_id === pull.base?.repo_id),
      );
      if (found?.html_url && found.number) {
        const title = found.title ?? '';
        return {
          number: found.number,
          title,
          body: found.body ?? '',
          html_url: found.html_url,
          draft: Boolean(found.draft) || WIP_PREFIX.test(title),
        };
      }
      if (data.length < PAGE_SIZE) return undefined;
    }
    return undefined;
  }

  async #update(
    target: Target,
    pull: OpenPull,
    wantedTitle: string,
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<PullRequestResult> {
    // The pull request keeps its work-in-progress state: a reviewer may have marked it ready.
    const title = pull.draft ? `WIP: ${wantedTitle}` : wantedTitle;
    if (pull.title === title && pull.body === body)
      return { url: pull.html_url, number: pull.number, reused: true };
    const { data } = await this.#call(
      target,
      `update pull request #${pull.number} in ${target.owner}/${target.repo}`,
      signal,
      (api, params) =>
        api.repos.repoEditPullRequest(target.owner, target.repo, pull.number, { title, body }, params),
    );
    return { url: data.html_url ?? pull.html_url, number: data.number ?? pull.number, reused: true };
  }
}

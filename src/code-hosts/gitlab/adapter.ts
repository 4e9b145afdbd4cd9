// GitLab (gitlab.com and self-managed) through @gitbeaker/rest: merge requests.
//
// Operations used (GitLab REST API, "Merge requests" and "Projects"; the project is addressed by
// its URL-encoded full path, so nested groups work): GET /projects/:id/merge_requests
// ?source_branch=&state=opened, POST /projects/:id/merge_requests, PUT
// /projects/:id/merge_requests/:iid, GET /projects/:id; for CI status (ci-status.ts) GET
// /projects/:id/pipelines?sha=, .../pipelines/:pipeline_id/jobs and .../jobs/:job_id/trace. A draft is a merge request whose title
// starts with "Draft: " (GitLab derives the draft state from the title).
import { Gitlab } from '@gitbeaker/rest';
import { type CiStatus, type CiStatusInput, scrubCiStatus } from '../ci.ts';
import type { CodeHost, CodeHostOptions, PullRequestInput, PullRequestResult } from '../contract.ts';
import { CodeHostError, SecretScrubber } from '../errors.ts';
import { basicAuthorization, locateRepository, rootBelowApi } from '../locations.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from '../retry.ts';
import { readGitLabCiStatus } from './ci-status.ts';
import { toCodeHostError } from './gitbeaker-errors.ts';

type GitlabClient = InstanceType<typeof Gitlab<false>>;

interface OpenMergeRequest {
  iid: number;
  title: string;
  description: string | null;
  web_url: string;
  draft: boolean;
}

/** The prefixes GitLab reads as "draft" ("Draft:", "[Draft]", "(Draft)"), case-insensitive. */
const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:)\s*/i;

export class GitLabCodeHost implements CodeHost {
  readonly kind = 'gitlab' as const;
  readonly #options: CodeHostOptions;
  readonly #token: string;
  readonly #retry: RetryPolicy;
  readonly #scrubber = new SecretScrubber();
  readonly #clients = new Map<string, GitlabClient>();

  constructor(options: CodeHostOptions) {
    if (options.credentials.type !== 'token') {
      throw new CodeHostError(
        'code_host_auth',
        'GitLab needs an access token; GitHub App credentials work only with GitHub.',
      );
    }
    this.#options = options;
    this.#token = options.credentials.token;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#scrubber.add(this.#token);
    this.#scrubber.add(basicAuthorization('oauth2', this.#token).slice('Basic '.length));
  }

  async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestResult> {
    const { host, project } = this.#target(input.repositoryUrl);
    const existing = input.headIsNew ? null : await this.#findOpen(host, project, input.head);
    if (existing) return this.#update(host, project, existing, input.title, input.body);

    const title = input.draft ? `Draft: ${input.title}` : input.title;
    try {
      const created = await this.#call(
        host,
        `open a merge request from ${input.head} into ${input.base} in ${project}`,
        (api) =>
          api.MergeRequests.create(project, input.head, input.base, title, { description: input.body }),
      );
      return { url: created.web_url, number: created.iid, reused: false };
    } catch (error) {
      // 409: "Another open merge request already exists for this source branch" (opened meanwhile).
      if (error instanceof CodeHostError && error.status === 409) {
        const again = await this.#findOpen(host, project, input.head);
        if (again) return this.#update(host, project, again, input.title, input.body);
      }
      throw error;
    }
  }

  async defaultBranch(repositoryUrl: string): Promise<string> {
    const { host, project } = this.#target(repositoryUrl);
    const data = await this.#call(host, `read project ${project}`, (api) => api.Projects.show(project));
    if (typeof data.default_branch !== 'string' || data.default_branch === '') {
      throw new CodeHostError(
        'pr_failed',
        `GitLab project ${project} has no default branch (is the repository empty?).`,
      );
    }
    return data.default_branch;
  }

  async gitAuthHeader(): Promise<string> {
    // GitLab accepts any user name with an access token as the password; "oauth2" is its documented one.
    return `Authorization: ${basicAuthorization('oauth2', this.#token)}`;
  }

  async ciStatus(input: CiStatusInput): Promise<CiStatus> {
    const { host, project } = this.#target(input.repositoryUrl);
    const status = await readGitLabCiStatus(
      (action, send) => this.#call(host, action, send),
      project,
      input.sha,
    );
    return scrubCiStatus(status, (text) => this.#scrubber.scrub(text));
  }

  #target(repositoryUrl: string): { host: string; project: string } {
    const { webBase, segments } = locateRepository('gitlab', repositoryUrl, this.#options.baseUrl);
    const host = this.#options.apiUrl ? rootBelowApi('gitlab', this.#options.apiUrl) : webBase;
    return { host, project: segments.join('/') };
  }

  #client(host: string): GitlabClient {
    let client = this.#clients.get(host);
    if (!client) {
      client = new Gitlab({
        host,
        token: this.#token,
        queryTimeout: this.#options.requestTimeoutMs ?? 30_000,
      });
      this.#clients.set(host, client);
    }
    return client;
  }

  #call<T>(host: string, action: string, send: (api: GitlabClient) => Promise<T>): Promise<T> {
    // gitbeaker takes no per-request signal; its queryTimeout bounds each request instead.
    return withRetries(this.#retry, undefined, async () => {
      try {
        return await send(this.#client(host));
      } catch (error) {
        throw toCodeHostError(error, { scrubber: this.#scrubber, action, apiUrl: `${host}/api/v4` });
      }
    });
  }

  async #findOpen(host: string, project: string, head: string): Promise<OpenMergeRequest | undefined> {
    const list = await this.#call(
      host,
      `look up open merge requests for branch ${head} in ${project}`,
      (api) =>
        api.MergeRequests.all({
          projectId: project,
          sourceBranch: head,
          state: 'opened',
          perPage: 100,
          maxPages: 1,
        }),
    );
    const found = list.find((mr) => mr.source_branch === head);
    if (!found) return undefined;
    return {
      iid: found.iid,
      title: found.title,
      description: found.description,
      web_url: found.web_url,
      draft: Boolean(found.draft ?? found.work_in_progress) || DRAFT_PREFIX.test(found.title),
    };
  }

  async #update(
    host: string,
    project: string,
    mr: OpenMergeRequest,
    wantedTitle: string,
    body: string,
  ): Promise<PullRequestResult> {
    // The merge request keeps its draft state: a reviewer may have marked it ready.
    const title = mr.draft ? `Draft: ${wantedTitle}` : wantedTitle;
    if (mr.title === title && (mr.description ?? '') === body) {
      return { url: mr.web_url, number: mr.iid, reused: true };
    }
    const updated = await this.#call(host, `update merge request !${mr.iid} in ${project}`, (api) =>
      api.MergeRequests.edit(project, mr.iid, { title, description: body }),
    );
    return { url: updated.web_url, number: updated.iid, reused: true };
  }
}

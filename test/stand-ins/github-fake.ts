// A stateful stand-in for the GitHub REST API: repositories with a default branch, branches as the
// test declares them (pushing is another stand-in's job), pull requests with number, state, draft,
// title, body, head, base and html_url, token authentication, GitHub App installation tokens, and
// a record of every request with credentials redacted. It also writes the webhook payloads GitHub
// sends for a merged pull request and for comments and reviews on one (pull_request closed,
// pull_request_review_comment created, issue_comment created, pull_request_review submitted),
// each checked by the tests against @octokit/webhooks-schemas.
//
// Built from GitHub's REST API documentation (docs.github.com/rest: "Pulls" — list with the
// `head=owner:branch` and `state` filters, create, update; "Repositories" — get; "Apps" — create an
// installation access token; "Authenticating as a GitHub App" — the RS256 JWT with iat, exp at most
// 10 minutes after iat, and iss) and from GitHub's OpenAPI description in @octokit/openapi, whose
// schemas (full-repository, repository, simple-user, pull-request, pull-request-simple,
// installation-token, basic-error, validation-error) every answer follows field by field.
// CI: "Checks" — list check runs for a Git reference (GET .../commits/{ref}/check-runs, with
// total_count and check_runs, the check-run schema); "Commit statuses" — get the combined status
// for a reference (GET .../commits/{ref}/status, combined-commit-status with the latest status per
// context and the combined state: failure if any failed or errored, pending if any is pending or
// there is none, else success). Check runs and statuses are added by the test per commit.
//
// It is schema-checked: the GitHub tests put Prism (proxy mode, --errors) in front of it with the
// subset of that description built by github-openapi-subset.ts, so a request Octokit sends or an
// answer this fake gives that the description does not allow fails the test (see prism.ts).
import { createPublicKey, type KeyObject, randomBytes, verify } from 'node:crypto';
import {
  CodeHostFakeServer,
  type FakeAnswer,
  type FakeRequest,
  presentedCredential,
  type ScriptedFault,
} from './code-host-fake-http.ts';

export interface GitHubFakeOptions {
  /** Where html_url points, e.g. https://github.com (default) or a GitHub Enterprise address. */
  webUrl?: string;
  /** "/api/v3" to serve the API where GitHub Enterprise Server does; "" (default) for api.github.com. */
  apiPrefix?: string;
  /** Personal access tokens the fake accepts. */
  tokens?: string[];
  /** A GitHub App that may exchange JWTs for installation tokens. */
  app?: { appId: string; publicKeyPem: string; installationId: number; tokenLifetimeMs?: number };
  /** Misbehave like a host that echoes the presented credential in its 401 message. */
  echoCredentialsInErrors?: boolean;
}

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  title: string;
  body: string | null;
  head: string;
  base: string;
  html_url: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakeCheckRun {
  id: number;
  sha: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion:
    | 'success'
    | 'failure'
    | 'neutral'
    | 'cancelled'
    | 'skipped'
    | 'timed_out'
    | 'action_required'
    | null;
  output: { title: string | null; summary: string | null; text: string | null };
  detailsUrl: string | null;
}

export interface FakeCommitStatus {
  id: number;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  at: string;
}

interface FakeRepo {
  id: number;
  owner: string;
  name: string;
  defaultBranch: string;
  branches: Set<string>;
  pulls: FakePull[];
  checkRuns: FakeCheckRun[];
  statuses: FakeCommitStatus[];
}

const DOCS = 'https://docs.github.com/rest';
const SHA = 'e5bd3914e2e596debea16f433f57875b5b90bcd6';

export class GitHubFake {
  readonly #server: CodeHostFakeServer;
  readonly #options: GitHubFakeOptions;
  /** Misbehave like a host that echoes the presented credential in its 401 message. */
  echoCredentialsInErrors: boolean;
  /** Lifetime of the installation tokens it issues from now on. */
  installationTokenLifetimeMs: number;
  readonly #tokens: Set<string>;
  readonly #installationTokens = new Map<string, number>();
  readonly #repos = new Map<string, FakeRepo>();
  readonly #appKey: KeyObject | undefined;
  #nextId = 1000;
  #sabotage = 0;
  /** How many installation tokens were issued (to check caching). */
  installationTokensIssued = 0;

  /** Whether a token is one of the installation tokens this fake issued and still honours. */
  isLiveInstallationToken(token: string): boolean {
    return (this.#installationTokens.get(token) ?? 0) > Date.now();
  }

  constructor(options: GitHubFakeOptions = {}) {
    this.#options = options;
    this.echoCredentialsInErrors = options.echoCredentialsInErrors ?? false;
    this.installationTokenLifetimeMs = options.app?.tokenLifetimeMs ?? 3_600_000;
    this.#tokens = new Set(options.tokens ?? []);
    this.#appKey = options.app ? createPublicKey(options.app.publicKeyPem) : undefined;
    this.#server = new CodeHostFakeServer((request) => this.#route(request));
    for (const token of this.#tokens) this.#server.addSecret(token);
  }

  get url(): string {
    return this.#server.url;
  }
  /** The path the API is served under: "" or "/api/v3". */
  get apiPrefix(): string {
    return this.#options.apiPrefix ?? '';
  }
  get requests() {
    return this.#server.requests;
  }
  /** Where a token appeared outside its header (should stay empty). */
  get secretLeaks(): string[] {
    return this.#server.secretLeaks;
  }
  recordedText(): string {
    return this.#server.recordedText();
  }
  start(): Promise<string> {
    return this.#server.start();
  }
  stop(): Promise<void> {
    return this.#server.stop();
  }
  fail(fault: ScriptedFault): void {
    this.#server.fail(fault);
  }

  /** The next `count` pull request answers leave out required fields, to prove the schema check bites. */
  sabotageNextPullAnswers(count = 1): void {
    this.#sabotage = count;
  }

  addRepo(repo: { owner: string; name: string; defaultBranch?: string; branches?: string[] }): void {
    const defaultBranch = repo.defaultBranch ?? 'main';
    this.#repos.set(`${repo.owner}/${repo.name}`.toLowerCase(), {
      id: this.#nextId++,
      owner: repo.owner,
      name: repo.name,
      defaultBranch,
      branches: new Set([defaultBranch, ...(repo.branches ?? [])]),
      pulls: [],
      checkRuns: [],
      statuses: [],
    });
  }

  /** Adds a check run on a commit (as a GitHub App such as Actions would); returns it to update. */
  addCheckRun(
    owner: string,
    name: string,
    run: {
      sha: string;
      name: string;
      status?: FakeCheckRun['status'];
      conclusion?: FakeCheckRun['conclusion'];
      output?: Partial<FakeCheckRun['output']>;
      detailsUrl?: string | null;
    },
  ): FakeCheckRun {
    const completed = (run.status ?? 'completed') === 'completed';
    const added: FakeCheckRun = {
      id: this.#nextId++,
      sha: run.sha,
      name: run.name,
      status: run.status ?? 'completed',
      conclusion: completed ? (run.conclusion ?? 'success') : null,
      output: { title: null, summary: null, text: null, ...run.output },
      detailsUrl: run.detailsUrl ?? null,
    };
    this.#repo(owner, name).checkRuns.push(added);
    return added;
  }

  /** Adds a commit status (as a CI service would through POST /repos/{o}/{r}/statuses/{sha}). */
  addCommitStatus(
    owner: string,
    name: string,
    status: {
      sha: string;
      context: string;
      state: FakeCommitStatus['state'];
      description?: string | null;
      targetUrl?: string | null;
    },
  ): void {
    this.#repo(owner, name).statuses.push({
      id: this.#nextId++,
      sha: status.sha,
      context: status.context,
      state: status.state,
      description: status.description ?? null,
      targetUrl: status.targetUrl ?? null,
      at: timestamp(),
    });
  }

  /**
   * The "status" webhook payload GitHub sends when a commit status is created: the newest status
   * of `context` on the commit (added with addCommitStatus), with the commit and the branch.
   */
  statusWebhook(owner: string, name: string, sha: string, context: string, branch = 'main') {
    const repo = this.#repo(owner, name);
    const status = repo.statuses.filter((s) => s.sha === sha && s.context === context).at(-1);
    if (!status) throw new Error(`The GitHub fake has no status ${context} on ${sha}`);
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const web = `${this.#webBase()}/${repo.owner}/${repo.name}`;
    const person = { name: 'docwright', email: 'docwright@example.test', date: status.at };
    const bot = this.#userJson('docwright-bot', 7);
    const sender = this.#userJson('ci-service', 44);
    return {
      id: status.id,
      sha,
      name: `${repo.owner}/${repo.name}`,
      target_url: status.targetUrl,
      avatar_url: null,
      context: status.context,
      description: status.description,
      state: status.state,
      commit: {
        sha,
        node_id: nodeId('Commit', status.id),
        commit: {
          author: person,
          committer: person,
          message: 'Update the docs',
          tree: { sha, url: `${api}/git/trees/${sha}` },
          url: `${api}/git/commits/${sha}`,
          comment_count: 0,
          verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
        },
        url: `${api}/commits/${sha}`,
        html_url: `${web}/commit/${sha}`,
        comments_url: `${api}/commits/${sha}/comments`,
        author: bot,
        committer: bot,
        parents: [],
      },
      branches: [{ name: branch, commit: { sha, url: `${api}/commits/${sha}` }, protected: false }],
      created_at: status.at,
      updated_at: status.at,
      repository: {
        ...this.#repositoryJson(repo),
        web_commit_signoff_required: false,
        custom_properties: {},
      },
      sender,
    };
  }

  /** Declares a branch as pushed. */
  addBranch(owner: string, name: string, branch: string): void {
    this.#repo(owner, name).branches.add(branch);
  }

  pulls(owner: string, name: string): FakePull[] {
    return this.#repo(owner, name).pulls;
  }

  /**
   * An open pull request as if docwright had opened it through the API (for tests that start from
   * one without running a job); answers its number.
   */
  addOpenPull(owner: string, name: string, input: { title: string; head: string; body?: string }): FakePull {
    const repo = this.#repo(owner, name);
    repo.branches.add(input.head);
    const number = repo.pulls.length + 1;
    const now = timestamp();
    const pull: FakePull = {
      number,
      state: 'open',
      draft: false,
      title: input.title,
      body: input.body ?? null,
      head: input.head,
      base: repo.defaultBranch,
      html_url: `${this.#webBase()}/${repo.owner}/${repo.name}/pull/${number}`,
      createdAt: now,
      updatedAt: now,
    };
    repo.pulls.push(pull);
    return pull;
  }

  /** Marks a pull request closed (as a reviewer would). */
  closePull(owner: string, name: string, number: number): void {
    const pull = this.#repo(owner, name).pulls.find((p) => p.number === number);
    if (!pull) throw new Error(`no pull #${number}`);
    pull.state = 'closed';
  }

  /**
   * A contributor's pull request in a code repository, merged at once (as if through the web UI);
   * answers the pull_request "closed" webhook payload GitHub sends for it.
   */
  mergeNewPull(
    owner: string,
    name: string,
    input: {
      title: string;
      body: string;
      head: string;
      base?: string;
      labels?: string[];
      mergeCommitSha: string;
    },
  ): Record<string, unknown> {
    const repo = this.#repo(owner, name);
    const number = repo.pulls.length + 1;
    const now = timestamp();
    const pull: FakePull = {
      number,
      state: 'closed',
      draft: false,
      title: input.title,
      body: input.body,
      head: input.head,
      base: input.base ?? repo.defaultBranch,
      html_url: `${this.#webBase()}/${repo.owner}/${repo.name}/pull/${number}`,
      createdAt: now,
      updatedAt: now,
    };
    repo.pulls.push(pull);
    const json = this.#pullJson(repo, pull, 'full');
    const user = this.#userJson('contributor', 42);
    // Webhook payloads describe repositories with two fields the REST answers here leave out.
    const webhookRepo = {
      ...this.#repositoryJson(repo),
      web_commit_signoff_required: false,
      custom_properties: {},
    };
    for (const side of ['head', 'base'] as const) {
      json[side] = { ...(json[side] as object), repo: webhookRepo };
    }
    Object.assign(json, {
      user,
      merged: true,
      merged_at: now,
      merged_by: user,
      merge_commit_sha: input.mergeCommitSha,
      labels: (input.labels ?? []).map((label, i) => ({
        id: 500 + i,
        node_id: nodeId('Label', 500 + i),
        url: `${this.#apiBase()}/repos/${repo.owner}/${repo.name}/labels/${encodeURIComponent(label)}`,
        name: label,
        color: 'ededed',
        default: false,
        description: null,
      })),
    });
    return {
      action: 'closed',
      number,
      pull_request: json,
      repository: webhookRepo,
      sender: user,
    };
  }

  /**
   * A reviewer's comment on lines of an open pull request (or a reply in one of its threads:
   * inReplyTo names the thread's first comment, as GitHub's in_reply_to_id does); answers the
   * pull_request_review_comment "created" webhook payload GitHub sends for it.
   */
  commentOnPullLines(
    owner: string,
    name: string,
    number: number,
    input: {
      body: string;
      path: string;
      line: number;
      startLine?: number;
      side?: 'LEFT' | 'RIGHT';
      inReplyTo?: number;
      author?: string;
    },
  ): Record<string, unknown> & { comment: { id: number } } {
    const { repo, pull, json, webhookRepo } = this.#webhookPull(owner, name, number);
    const id = this.#nextId++;
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const user = this.#userJson(input.author ?? 'reviewer', 43);
    user.type = 'User';
    const now = timestamp();
    const html = `${pull.html_url}#discussion_r${id}`;
    const comment = {
      url: `${api}/pulls/comments/${id}`,
      pull_request_review_id: this.#nextId++,
      id,
      node_id: nodeId('PullRequestReviewComment', id),
      diff_hunk: `@@ -1,3 +1,3 @@\n-${input.path} line\n+${input.path} line`,
      path: input.path,
      position: input.line,
      original_position: input.line,
      commit_id: SHA,
      original_commit_id: SHA,
      user,
      body: input.body,
      created_at: now,
      updated_at: now,
      html_url: html,
      pull_request_url: `${api}/pulls/${number}`,
      author_association: 'COLLABORATOR',
      _links: {
        self: { href: `${api}/pulls/comments/${id}` },
        html: { href: html },
        pull_request: { href: `${api}/pulls/${number}` },
      },
      start_line: input.startLine ?? null,
      original_start_line: input.startLine ?? null,
      start_side: input.startLine === undefined ? null : (input.side ?? 'RIGHT'),
      line: input.line,
      original_line: input.line,
      side: input.side ?? 'RIGHT',
      subject_type: 'line',
      reactions: reactionsJson(`${api}/pulls/comments/${id}/reactions`),
      ...(input.inReplyTo === undefined ? {} : { in_reply_to_id: input.inReplyTo }),
    };
    return { action: 'created', comment, pull_request: json, repository: webhookRepo, sender: user };
  }

  /** A comment on an open pull request's conversation; answers the issue_comment "created" payload. */
  commentOnPull(
    owner: string,
    name: string,
    number: number,
    input: { body: string; author?: string; viaApp?: { id: number; slug: string } },
  ): Record<string, unknown> {
    const { repo, pull, webhookRepo } = this.#webhookPull(owner, name, number);
    const id = this.#nextId++;
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const user = this.#userJson(input.author ?? 'reviewer', 43);
    user.type = input.viaApp ? 'Bot' : 'User';
    const now = timestamp();
    const issue = {
      url: `${api}/issues/${number}`,
      repository_url: api,
      labels_url: `${api}/issues/${number}/labels{/name}`,
      comments_url: `${api}/issues/${number}/comments`,
      events_url: `${api}/issues/${number}/events`,
      html_url: pull.html_url,
      id: repo.id * 10_000 + number,
      node_id: nodeId('PullRequest', repo.id * 10_000 + number),
      number,
      title: pull.title,
      user: this.#userJson('docwright-bot', 7),
      labels: [],
      state: pull.state,
      locked: false,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: 1,
      created_at: pull.createdAt,
      updated_at: now,
      closed_at: null,
      author_association: 'NONE',
      active_lock_reason: null,
      draft: pull.draft,
      pull_request: {
        url: `${api}/pulls/${number}`,
        html_url: pull.html_url,
        diff_url: `${pull.html_url}.diff`,
        patch_url: `${pull.html_url}.patch`,
        merged_at: null,
      },
      body: pull.body,
      reactions: reactionsJson(`${api}/issues/${number}/reactions`),
      timeline_url: `${api}/issues/${number}/timeline`,
      performed_via_github_app: null,
      state_reason: null,
    };
    const comment = {
      url: `${api}/issues/comments/${id}`,
      html_url: `${pull.html_url}#issuecomment-${id}`,
      issue_url: `${api}/issues/${number}`,
      id,
      node_id: nodeId('IssueComment', id),
      user,
      created_at: now,
      updated_at: now,
      author_association: 'COLLABORATOR',
      performed_via_github_app: input.viaApp ? this.#appJson(input.viaApp) : null,
      body: input.body,
      reactions: reactionsJson(`${api}/issues/comments/${id}/reactions`),
    };
    return { action: 'created', issue, comment, repository: webhookRepo, sender: user };
  }

  /** A submitted review of an open pull request; answers the pull_request_review "submitted" payload. */
  reviewPull(
    owner: string,
    name: string,
    number: number,
    input: { body: string | null; state?: 'commented' | 'changes_requested' | 'approved'; author?: string },
  ): Record<string, unknown> {
    const { repo, pull, json, webhookRepo } = this.#webhookPull(owner, name, number);
    const id = this.#nextId++;
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const user = this.#userJson(input.author ?? 'reviewer', 43);
    user.type = 'User';
    const html = `${pull.html_url}#pullrequestreview-${id}`;
    const review = {
      id,
      node_id: nodeId('PullRequestReview', id),
      user,
      body: input.body,
      commit_id: SHA,
      submitted_at: timestamp(),
      state: input.state ?? 'commented',
      html_url: html,
      pull_request_url: `${api}/pulls/${number}`,
      author_association: 'COLLABORATOR',
      _links: { html: { href: html }, pull_request: { href: `${api}/pulls/${number}` } },
    };
    return { action: 'submitted', review, pull_request: json, repository: webhookRepo, sender: user };
  }

  /** An open pull request as webhook payloads describe it. */
  #webhookPull(owner: string, name: string, number: number) {
    const repo = this.#repo(owner, name);
    const pull = repo.pulls.find((p) => p.number === number);
    if (!pull) throw new Error(`The GitHub fake has no pull #${number} in ${owner}/${name}`);
    // Comment and review payloads describe the pull request without the full answer's counts.
    const json = this.#pullJson(repo, pull, 'simple');
    const webhookRepo = {
      ...this.#repositoryJson(repo),
      web_commit_signoff_required: false,
      custom_properties: {},
    };
    for (const side of ['head', 'base'] as const) {
      json[side] = { ...(json[side] as object), repo: webhookRepo };
    }
    return { repo, pull, json, webhookRepo };
  }

  #appJson(app: { id: number; slug: string }) {
    return {
      id: app.id,
      slug: app.slug,
      node_id: nodeId('App', app.id),
      owner: this.#userJson('acme', 9),
      name: app.slug,
      description: null,
      external_url: `${this.#webBase()}/apps/${app.slug}`,
      html_url: `${this.#webBase()}/apps/${app.slug}`,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      permissions: { pull_requests: 'write', contents: 'write' },
      events: [],
    };
  }

  #repo(owner: string, name: string): FakeRepo {
    const repo = this.#repos.get(`${owner}/${name}`.toLowerCase());
    if (!repo) throw new Error(`The GitHub fake has no repository ${owner}/${name}`);
    return repo;
  }

  #apiBase(): string {
    return `${this.#server.url}${this.apiPrefix}`;
  }
  #webBase(): string {
    return (this.#options.webUrl ?? 'https://github.com').replace(/\/+$/, '');
  }

  async #route(request: FakeRequest): Promise<FakeAnswer> {
    const prefix = this.apiPrefix.split('/').filter(Boolean);
    if (prefix.some((part, i) => request.segments[i] !== part)) return notFound();
    const path = request.segments.slice(prefix.length);
    const { method } = request;

    if (
      method === 'POST' &&
      path.length === 4 &&
      path[0] === 'app' &&
      path[1] === 'installations' &&
      path[3] === 'access_tokens'
    ) {
      return this.#createInstallationToken(request, Number(path[2]));
    }

    const refused = this.#authenticate(request);
    if (refused) return refused;

    if (path[0] !== 'repos' || path.length < 3) return notFound();
    const repo = this.#repos.get(`${path[1]}/${path[2]}`.toLowerCase());
    // GitHub answers 404, not 403, for a repository the token cannot see.
    if (!repo) return notFound();
    const rest = path.slice(3);
    if (rest.length === 0 && method === 'GET') return { status: 200, body: this.#fullRepositoryJson(repo) };
    if (rest.length === 1 && rest[0] === 'pulls' && method === 'GET')
      return this.#listPulls(repo, request.query);
    if (rest.length === 1 && rest[0] === 'pulls' && method === 'POST')
      return this.#createPull(repo, request.json);
    if (rest.length === 2 && rest[0] === 'pulls' && method === 'PATCH') {
      return this.#updatePull(repo, Number(rest[1]), request.json);
    }
    if (rest.length === 3 && rest[0] === 'commits' && method === 'GET') {
      if (rest[2] === 'check-runs') return this.#listCheckRuns(repo, rest[1]!, request.query);
      if (rest[2] === 'status') return this.#combinedStatus(repo, rest[1]!);
    }
    return notFound();
  }

  #listCheckRuns(repo: FakeRepo, ref: string, query: URLSearchParams): FakeAnswer {
    const perPage = Math.min(Number(query.get('per_page') ?? 30), 100);
    let runs = repo.checkRuns.filter((r) => r.sha === ref);
    if ((query.get('filter') ?? 'latest') === 'latest') {
      // The most recent run of each name.
      const latest = new Map<string, FakeCheckRun>();
      for (const run of runs) latest.set(run.name, run);
      runs = [...latest.values()];
    }
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const web = `${this.#webBase()}/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      body: {
        total_count: runs.length,
        check_runs: runs.slice(0, perPage).map((run) => ({
          id: run.id,
          head_sha: run.sha,
          node_id: nodeId('CheckRun', run.id),
          external_id: '',
          url: `${api}/check-runs/${run.id}`,
          html_url: `${web}/runs/${run.id}`,
          details_url: run.detailsUrl ?? `${web}/runs/${run.id}`,
          status: run.status,
          conclusion: run.conclusion,
          started_at: '2026-01-01T00:00:00Z',
          completed_at: run.status === 'completed' ? '2026-01-01T00:01:00Z' : null,
          output: {
            ...run.output,
            annotations_count: 0,
            annotations_url: `${api}/check-runs/${run.id}/annotations`,
          },
          name: run.name,
          check_suite: { id: run.id + 1 },
          app: null,
          pull_requests: [],
        })),
      },
    };
  }

  #combinedStatus(repo: FakeRepo, ref: string): FakeAnswer {
    const latest = new Map<string, FakeCommitStatus>();
    for (const status of repo.statuses.filter((s) => s.sha === ref)) latest.set(status.context, status);
    const statuses = [...latest.values()];
    const state = statuses.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : statuses.length === 0 || statuses.some((s) => s.state === 'pending')
        ? 'pending'
        : 'success';
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      body: {
        state,
        statuses: statuses.map((s) => ({
          url: `${api}/statuses/${s.sha}`,
          avatar_url: null,
          id: s.id,
          node_id: nodeId('StatusContext', s.id),
          state: s.state,
          description: s.description,
          target_url: s.targetUrl,
          context: s.context,
          created_at: s.at,
          updated_at: s.at,
        })),
        sha: ref,
        total_count: statuses.length,
        repository: this.#repositoryJson(repo),
        commit_url: `${api}/commits/${ref}`,
        url: `${api}/commits/${ref}/status`,
      },
    };
  }

  #authenticate(request: FakeRequest): FakeAnswer | undefined {
    const credential = presentedCredential(request.headers);
    if (credential && (credential.scheme === 'token' || credential.scheme === 'bearer')) {
      if (this.#tokens.has(credential.value)) return undefined;
      const expires = this.#installationTokens.get(credential.value);
      if (expires !== undefined && expires > Date.now()) return undefined;
    }
    const echo = this.echoCredentialsInErrors && credential ? ` (got ${credential.value})` : '';
    return {
      status: 401,
      body: { message: `Bad credentials${echo}`, documentation_url: DOCS, status: '401' },
    };
  }

  #createInstallationToken(request: FakeRequest, installationId: number): FakeAnswer {
    const app = this.#options.app;
    const credential = presentedCredential(request.headers);
    const problem =
      !app || !this.#appKey
        ? 'This fake has no GitHub App'
        : credential?.scheme !== 'bearer'
          ? 'A JSON web token could not be decoded'
          : checkAppJwt(credential.value, app.appId, this.#appKey);
    if (problem) {
      const echo = this.echoCredentialsInErrors && credential ? ` (got ${credential.value})` : '';
      return { status: 401, body: { message: `${problem}${echo}`, documentation_url: DOCS, status: '401' } };
    }
    if (installationId !== app!.installationId) return notFound();
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expiresAt = Date.now() + this.installationTokenLifetimeMs;
    this.#installationTokens.set(token, expiresAt);
    this.#server.addSecret(token);
    this.installationTokensIssued++;
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' },
        repository_selection: 'all',
      },
    };
  }

  #listPulls(repo: FakeRepo, query: URLSearchParams): FakeAnswer {
    const state = query.get('state') ?? 'open';
    const head = query.get('head');
    const base = query.get('base');
    const perPage = Math.min(Number(query.get('per_page') ?? 30), 100);
    const page = Math.max(Number(query.get('page') ?? 1), 1);
    const matching = repo.pulls
      .filter((p) => state === 'all' || p.state === state)
      .filter((p) => !head || head === `${repo.owner}:${p.head}`)
      .filter((p) => !base || p.base === base)
      .sort((a, b) => b.number - a.number);
    const pageItems = matching.slice((page - 1) * perPage, page * perPage);
    return { status: 200, body: pageItems.map((p) => this.#pullJson(repo, p, 'simple')) };
  }

  #createPull(repo: FakeRepo, json: unknown): FakeAnswer {
    const input = (json ?? {}) as {
      title?: string;
      head?: string;
      base?: string;
      body?: string;
      draft?: boolean;
    };
    const invalid = (field: string) =>
      validationFailed([{ resource: 'PullRequest', field, code: 'missing_field' }]);
    if (!input.title) return invalid('title');
    if (!input.head) return invalid('head');
    if (!input.base) return invalid('base');
    const head = input.head.includes(':') ? input.head.slice(input.head.indexOf(':') + 1) : input.head;
    if (!repo.branches.has(head))
      return validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    if (!repo.branches.has(input.base)) {
      return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    }
    if (head === input.base) {
      return validationFailed([
        { resource: 'PullRequest', code: 'custom', message: `No commits between ${input.base} and ${head}` },
      ]);
    }
    if (repo.pulls.some((p) => p.state === 'open' && p.head === head && p.base === input.base)) {
      return validationFailed([
        {
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${repo.owner}:${head}.`,
        },
      ]);
    }
    const number = repo.pulls.length + 1;
    const now = timestamp();
    const pull: FakePull = {
      number,
      state: 'open',
      draft: input.draft === true,
      title: input.title,
      body: input.body ?? null,
      head,
      base: input.base,
      html_url: `${this.#webBase()}/${repo.owner}/${repo.name}/pull/${number}`,
      createdAt: now,
      updatedAt: now,
    };
    repo.pulls.push(pull);
    return {
      status: 201,
      headers: { location: `${this.#apiBase()}/repos/${repo.owner}/${repo.name}/pulls/${number}` },
      body: this.#pullJson(repo, pull, 'full'),
    };
  }

  #updatePull(repo: FakeRepo, number: number, json: unknown): FakeAnswer {
    const pull = repo.pulls.find((p) => p.number === number);
    if (!pull) return notFound();
    const input = (json ?? {}) as { title?: string; body?: string; state?: 'open' | 'closed'; base?: string };
    if (input.base !== undefined && !repo.branches.has(input.base)) {
      return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    }
    if (input.title !== undefined) pull.title = input.title;
    if (input.body !== undefined) pull.body = input.body;
    if (input.state !== undefined) pull.state = input.state;
    if (input.base !== undefined) pull.base = input.base;
    pull.updatedAt = timestamp();
    return { status: 200, body: this.#pullJson(repo, pull, 'full') };
  }

  #userJson(login: string, id: number) {
    const api = `${this.#apiBase()}/users/${login}`;
    return {
      login,
      id,
      node_id: nodeId('User', id),
      avatar_url: `${this.#webBase()}/avatars/${login}`,
      gravatar_id: '',
      url: api,
      html_url: `${this.#webBase()}/${login}`,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: 'Organization',
      site_admin: false,
    };
  }

  /** The `repository` schema (pull heads and bases); full-repository adds a few counts. */
  #repositoryJson(repo: FakeRepo) {
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const web = `${this.#webBase()}/${repo.owner}/${repo.name}`;
    const host = new URL(this.#webBase()).host;
    return {
      id: repo.id,
      node_id: nodeId('Repository', repo.id),
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: this.#userJson(repo.owner, repo.id + 1),
      private: true,
      html_url: web,
      description: null,
      fork: false,
      url: api,
      archive_url: `${api}/{archive_format}{/ref}`,
      assignees_url: `${api}/assignees{/user}`,
      blobs_url: `${api}/git/blobs{/sha}`,
      branches_url: `${api}/branches{/branch}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      comments_url: `${api}/comments{/number}`,
      commits_url: `${api}/commits{/sha}`,
      compare_url: `${api}/compare/{base}...{head}`,
      contents_url: `${api}/contents/{+path}`,
      contributors_url: `${api}/contributors`,
      deployments_url: `${api}/deployments`,
      downloads_url: `${api}/downloads`,
      events_url: `${api}/events`,
      forks_url: `${api}/forks`,
      git_commits_url: `${api}/git/commits{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_url: `git://${host}/${repo.owner}/${repo.name}.git`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      issue_events_url: `${api}/issues/events{/number}`,
      issues_url: `${api}/issues{/number}`,
      keys_url: `${api}/keys{/key_id}`,
      labels_url: `${api}/labels{/name}`,
      languages_url: `${api}/languages`,
      merges_url: `${api}/merges`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      pulls_url: `${api}/pulls{/number}`,
      releases_url: `${api}/releases{/id}`,
      ssh_url: `git@${host}:${repo.owner}/${repo.name}.git`,
      stargazers_url: `${api}/stargazers`,
      statuses_url: `${api}/statuses/{sha}`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      tags_url: `${api}/tags`,
      teams_url: `${api}/teams`,
      trees_url: `${api}/git/trees{/sha}`,
      clone_url: `${web}.git`,
      mirror_url: null,
      hooks_url: `${api}/hooks`,
      svn_url: web,
      homepage: null,
      language: null,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      size: 0,
      default_branch: repo.defaultBranch,
      open_issues: repo.pulls.filter((p) => p.state === 'open').length,
      open_issues_count: repo.pulls.filter((p) => p.state === 'open').length,
      is_template: false,
      topics: [],
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: 'private',
      license: null,
      pushed_at: '2026-01-01T00:00:00Z',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  }

  #fullRepositoryJson(repo: FakeRepo) {
    return { ...this.#repositoryJson(repo), network_count: 0, subscribers_count: 0 };
  }

  #pullJson(repo: FakeRepo, pull: FakePull, shape: 'simple' | 'full') {
    const api = `${this.#apiBase()}/repos/${repo.owner}/${repo.name}`;
    const id = repo.id * 10_000 + pull.number;
    const author = this.#userJson('docwright-bot', 7);
    const branch = (ref: string) => ({
      label: `${repo.owner}:${ref}`,
      ref,
      repo: this.#repositoryJson(repo),
      sha: SHA,
      user: this.#userJson(repo.owner, repo.id + 1),
    });
    const closed = pull.state === 'closed';
    const json: Record<string, unknown> = {
      url: `${api}/pulls/${pull.number}`,
      id,
      node_id: nodeId('PullRequest', id),
      html_url: pull.html_url,
      diff_url: `${pull.html_url}.diff`,
      patch_url: `${pull.html_url}.patch`,
      issue_url: `${api}/issues/${pull.number}`,
      commits_url: `${api}/pulls/${pull.number}/commits`,
      review_comments_url: `${api}/pulls/${pull.number}/comments`,
      review_comment_url: `${api}/pulls/comments{/number}`,
      comments_url: `${api}/issues/${pull.number}/comments`,
      statuses_url: `${api}/statuses/${SHA}`,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      user: author,
      body: pull.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: closed ? pull.updatedAt : null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: branch(pull.head),
      base: branch(pull.base),
      _links: {
        self: { href: `${api}/pulls/${pull.number}` },
        html: { href: pull.html_url },
        issue: { href: `${api}/issues/${pull.number}` },
        comments: { href: `${api}/issues/${pull.number}/comments` },
        review_comments: { href: `${api}/pulls/${pull.number}/comments` },
        review_comment: { href: `${api}/pulls/comments{/number}` },
        commits: { href: `${api}/pulls/${pull.number}/commits` },
        statuses: { href: `${api}/statuses/${SHA}` },
      },
      author_association: 'NONE',
      auto_merge: null,
      draft: pull.draft,
    };
    if (shape === 'full') {
      Object.assign(json, {
        merged: false,
        mergeable: null,
        rebaseable: null,
        mergeable_state: 'unknown',
        merged_by: null,
        comments: 0,
        review_comments: 0,
        maintainer_can_modify: false,
        commits: 1,
        additions: 1,
        deletions: 0,
        changed_files: 1,
      });
    }
    if (this.#sabotage > 0) {
      this.#sabotage--;
      delete json.html_url;
      json.number = String(pull.number);
    }
    return json;
  }
}

/** Why a GitHub App JWT is refused, or undefined when it is good. */
function checkAppJwt(jwt: string, appId: string, key: KeyObject): string | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'A JSON web token could not be decoded';
  const [header, payload, signature] = parts as [string, string, string];
  let head: { alg?: string };
  let claims: { iat?: number; exp?: number; iss?: string | number };
  try {
    head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return 'A JSON web token could not be decoded';
  }
  if (head.alg !== 'RS256') return "'Expiration time' claim ('exp') or algorithm is invalid";
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    key,
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return 'A JSON web token could not be decoded';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
    return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
  }
  if (claims.exp <= now) return "'Expiration time' claim ('exp') is too far in the past";
  if (claims.exp - claims.iat > 600) return "'Expiration time' claim ('exp') is too far in the future";
  if (claims.iat > now + 60)
    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
  if (String(claims.iss) !== appId) return `'Issuer' claim ('iss') must be an Integer`;
  return undefined;
}

function notFound(): FakeAnswer {
  return { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
}

function validationFailed(errors: Array<Record<string, string>>): FakeAnswer {
  return {
    status: 422,
    body: { message: 'Validation Failed', errors, documentation_url: DOCS, status: '422' },
  };
}

function reactionsJson(url: string) {
  return {
    url,
    total_count: 0,
    '+1': 0,
    '-1': 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  };
}

function nodeId(kind: string, id: number): string {
  return Buffer.from(`${kind}${id}`).toString('base64');
}

function timestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

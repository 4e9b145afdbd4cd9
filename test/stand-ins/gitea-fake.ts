// A stateful stand-in for the Gitea (and Forgejo) API v1, for pull requests: repositories with a
// default branch, branches as the test declares them, pull requests with number, state, draft (the
// "WIP:" / "[WIP]" title prefix), title, body, head, base and html_url, token authentication, and
// a record of every request with credentials redacted.
//
// Built from Gitea's API documentation and its swagger description (/api/swagger, as mirrored by
// gitea-js 1.23's generated types): GET /repos/{owner}/{repo}; GET /repos/{owner}/{repo}/pulls
// with state, page and limit; POST /repos/{owner}/{repo}/pulls (201; 404 when a branch is missing;
// 409 "pull request already exists for these targets"); PATCH /repos/{owner}/{repo}/pulls/{index}
// (which answers 201, as Gitea's swagger says); errors as {"message", "url"}; tokens sent as
// "Authorization: token ..." or "Bearer ..." (what gitea-js sends). Gitea's exact wording of the
// 401 and 422 messages is approximated.
// CI: GET /repos/{owner}/{repo}/commits/{ref}/status (CombinedStatus: the latest status per
// context, each with `status` — pending, success, error, failure, warning — context, description,
// target_url; and a combined `state`). For a commit without statuses Gitea answers 200 with an
// empty CombinedStatus (empty strings, statuses null), as this fake does. Statuses are added by
// the test per commit, as Gitea Actions or an external CI would through POST /statuses/{sha}.
// NOT schema-checked: it is verified only through the real client (gitea-js).
import {
  CodeHostFakeServer,
  type FakeAnswer,
  type FakeRequest,
  presentedCredential,
  type ScriptedFault,
} from './code-host-fake-http.ts';

export interface GiteaFakeOptions {
  /** Where html_url points, e.g. https://gitea.example.test (default). */
  webUrl?: string;
  tokens?: string[];
}

export interface FakeGiteaPull {
  id: number;
  number: number;
  state: 'open' | 'closed';
  title: string;
  body: string;
  head: string;
  base: string;
  html_url: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakeGiteaStatus {
  id: number;
  sha: string;
  context: string;
  status: 'pending' | 'success' | 'error' | 'failure' | 'warning';
  description: string;
  targetUrl: string;
  at: string;
}

interface FakeGiteaRepo {
  id: number;
  owner: string;
  name: string;
  defaultBranch: string;
  branches: Set<string>;
  pulls: FakeGiteaPull[];
  statuses: FakeGiteaStatus[];
}

const WIP_PREFIX = /^\s*(wip:|\[wip\])\s*/i;
const SWAGGER = 'https://gitea.example.test/api/swagger';

export class GiteaFake {
  readonly #server: CodeHostFakeServer;
  readonly #options: GiteaFakeOptions;
  readonly #tokens: Set<string>;
  readonly #repos = new Map<string, FakeGiteaRepo>();
  #nextId = 10;

  constructor(options: GiteaFakeOptions = {}) {
    this.#options = options;
    this.#tokens = new Set(options.tokens ?? []);
    this.#server = new CodeHostFakeServer((request) => this.#route(request));
    for (const token of this.#tokens) this.#server.addSecret(token);
  }

  get url(): string {
    return this.#server.url;
  }
  get requests() {
    return this.#server.requests;
  }
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

  addRepo(repo: { owner: string; name: string; defaultBranch?: string; branches?: string[] }): void {
    const defaultBranch = repo.defaultBranch ?? 'main';
    this.#repos.set(`${repo.owner}/${repo.name}`.toLowerCase(), {
      id: this.#nextId++,
      owner: repo.owner,
      name: repo.name,
      defaultBranch,
      branches: new Set([defaultBranch, ...(repo.branches ?? [])]),
      pulls: [],
      statuses: [],
    });
  }

  /** Adds a commit status (as Gitea Actions or an external CI would). */
  addCommitStatus(
    owner: string,
    name: string,
    status: {
      sha: string;
      context: string;
      status: FakeGiteaStatus['status'];
      description?: string;
      targetUrl?: string;
    },
  ): void {
    const repo = this.#repo(owner, name);
    repo.statuses.push({
      id: this.#nextId++,
      sha: status.sha,
      context: status.context,
      status: status.status,
      description: status.description ?? '',
      targetUrl: status.targetUrl ?? '',
      at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
  }

  addBranch(owner: string, name: string, branch: string): void {
    this.#repo(owner, name).branches.add(branch);
  }

  pulls(owner: string, name: string): FakeGiteaPull[] {
    return this.#repo(owner, name).pulls;
  }

  #repo(owner: string, name: string): FakeGiteaRepo {
    const repo = this.#repos.get(`${owner}/${name}`.toLowerCase());
    if (!repo) throw new Error(`The Gitea fake has no repository ${owner}/${name}`);
    return repo;
  }

  #webBase(): string {
    return (this.#options.webUrl ?? 'https://gitea.example.test').replace(/\/+$/, '');
  }

  #route(request: FakeRequest): FakeAnswer {
    const [api, version, ...path] = request.segments;
    if (api !== 'api' || version !== 'v1') return error(404, 'Not Found');
    const credential = presentedCredential(request.headers);
    const known =
      credential &&
      (credential.scheme === 'token' || credential.scheme === 'bearer') &&
      this.#tokens.has(credential.value);
    if (!known) return error(401, 'invalid username, password or token');

    if (path[0] !== 'repos' || path.length < 3) return error(404, 'Not Found');
    const repo = this.#repos.get(`${path[1]}/${path[2]}`.toLowerCase());
    if (!repo) return error(404, "The target couldn't be found.");
    const rest = path.slice(3);
    const { method } = request;
    if (rest.length === 0 && method === 'GET') return { status: 200, body: this.#repositoryJson(repo) };
    if (rest.length === 1 && rest[0] === 'pulls' && method === 'GET') return this.#list(repo, request.query);
    if (rest.length === 1 && rest[0] === 'pulls' && method === 'POST')
      return this.#create(repo, request.json);
    if (rest.length === 2 && rest[0] === 'pulls' && method === 'PATCH')
      return this.#edit(repo, Number(rest[1]), request.json);
    if (rest.length === 3 && rest[0] === 'commits' && rest[2] === 'status' && method === 'GET')
      return this.#combinedStatus(repo, rest[1]!);
    return error(404, 'Not Found');
  }

  #combinedStatus(repo: FakeGiteaRepo, ref: string): FakeAnswer {
    const latest = new Map<string, FakeGiteaStatus>();
    for (const status of repo.statuses.filter((s) => s.sha === ref)) latest.set(status.context, status);
    const statuses = [...latest.values()];
    if (statuses.length === 0) {
      return {
        status: 200,
        body: {
          commit_url: '',
          repository: null,
          sha: '',
          state: '',
          statuses: null,
          total_count: 0,
          url: '',
        },
      };
    }
    const worst = ['error', 'failure', 'warning', 'pending', 'success'].find((state) =>
      statuses.some((s) => s.status === state),
    );
    const api = `${this.#server.url}/api/v1/repos/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      body: {
        commit_url: `${api}/git/commits/${ref}`,
        repository: this.#repositoryJson(repo),
        sha: ref,
        state: worst,
        total_count: statuses.length,
        url: `${api}/commits/${ref}/status`,
        statuses: statuses.map((s) => ({
          id: s.id,
          status: s.status,
          context: s.context,
          description: s.description,
          target_url: s.targetUrl,
          url: `${api}/statuses/${ref}`,
          creator: this.#userJson('ci-bot', 9),
          created_at: s.at,
          updated_at: s.at,
        })),
      },
    };
  }

  #list(repo: FakeGiteaRepo, query: URLSearchParams): FakeAnswer {
    const state = query.get('state') ?? 'open';
    // Gitea caps the page size at its MAX_RESPONSE_ITEMS (50 by default).
    const limit = Math.min(Number(query.get('limit') ?? 30), 50);
    const page = Math.max(Number(query.get('page') ?? 1), 1);
    const matching = repo.pulls
      .filter((p) => state === 'all' || p.state === state)
      .sort((a, b) => b.number - a.number);
    return {
      status: 200,
      headers: { 'x-total-count': String(matching.length) },
      body: matching.slice((page - 1) * limit, page * limit).map((p) => this.#pullJson(repo, p)),
    };
  }

  #create(repo: FakeGiteaRepo, json: unknown): FakeAnswer {
    const input = (json ?? {}) as { head?: string; base?: string; title?: string; body?: string };
    if (!input.title) return error(422, '[Title]: Required');
    if (!input.head || !input.base) return error(422, 'head and base are required');
    if (!repo.branches.has(input.head) || !repo.branches.has(input.base))
      return error(404, "The target couldn't be found.");
    if (input.head === input.base)
      return error(422, 'Invalid PullRequest: There are no changes between the head and the base');
    const existing = repo.pulls.find(
      (p) => p.state === 'open' && p.head === input.head && p.base === input.base,
    );
    if (existing) {
      return error(
        409,
        `pull request already exists for these targets [id: ${existing.id}, issue_id: ${existing.id}, head_repo_id: ${repo.id}, base_repo_id: ${repo.id}, head_branch: ${existing.head}, base_branch: ${existing.base}]`,
      );
    }
    const number = repo.pulls.length + 1;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const pull: FakeGiteaPull = {
      id: repo.id * 1000 + number,
      number,
      state: 'open',
      title: input.title,
      body: input.body ?? '',
      head: input.head,
      base: input.base,
      html_url: `${this.#webBase()}/${repo.owner}/${repo.name}/pulls/${number}`,
      createdAt: now,
      updatedAt: now,
    };
    repo.pulls.push(pull);
    return { status: 201, body: this.#pullJson(repo, pull) };
  }

  #edit(repo: FakeGiteaRepo, number: number, json: unknown): FakeAnswer {
    const pull = repo.pulls.find((p) => p.number === number);
    if (!pull) return error(404, "The target couldn't be found.");
    const input = (json ?? {}) as { title?: string; body?: string; state?: 'open' | 'closed' };
    if (input.title !== undefined) pull.title = input.title;
    if (input.body !== undefined) pull.body = input.body;
    if (input.state !== undefined) pull.state = input.state;
    pull.updatedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { status: 201, body: this.#pullJson(repo, pull) };
  }

  #userJson(login: string, id: number) {
    return {
      id,
      login,
      full_name: '',
      email: `${login}@noreply.gitea.example.test`,
      avatar_url: `${this.#webBase()}/avatars/${id}`,
      html_url: `${this.#webBase()}/${login}`,
      username: login,
    };
  }

  #repositoryJson(repo: FakeGiteaRepo) {
    const web = `${this.#webBase()}/${repo.owner}/${repo.name}`;
    return {
      id: repo.id,
      owner: this.#userJson(repo.owner, repo.id + 500),
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      description: '',
      empty: false,
      private: true,
      fork: false,
      html_url: web,
      url: `${this.#server.url}/api/v1/repos/${repo.owner}/${repo.name}`,
      ssh_url: `git@${new URL(web).host}:${repo.owner}/${repo.name}.git`,
      clone_url: `${web}.git`,
      default_branch: repo.defaultBranch,
      open_pr_counter: repo.pulls.filter((p) => p.state === 'open').length,
      has_pull_requests: true,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  }

  #pullJson(repo: FakeGiteaRepo, pull: FakeGiteaPull) {
    const branch = (ref: string) => ({
      label: ref,
      ref,
      sha: 'e5bd3914e2e596debea16f433f57875b5b90bcd6',
      repo_id: repo.id,
      repo: this.#repositoryJson(repo),
    });
    return {
      id: pull.id,
      url: pull.html_url,
      number: pull.number,
      user: this.#userJson('docwright-bot', 7),
      title: pull.title,
      body: pull.body,
      labels: [],
      milestone: null,
      assignee: null,
      assignees: null,
      state: pull.state,
      draft: WIP_PREFIX.test(pull.title),
      is_locked: false,
      comments: 0,
      html_url: pull.html_url,
      diff_url: `${pull.html_url}.diff`,
      patch_url: `${pull.html_url}.patch`,
      mergeable: true,
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
      allow_maintainer_edit: false,
      base: branch(pull.base),
      head: branch(pull.head),
      merge_base: 'e5bd3914e2e596debea16f433f57875b5b90bcd6',
      due_date: null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.state === 'closed' ? pull.updatedAt : null,
    };
  }
}

function error(status: number, message: string): FakeAnswer {
  return { status, body: { message, url: SWAGGER } };
}

// A stateful stand-in for GitLab's REST API v4, for merge requests: projects (addressed by numeric
// id or URL-encoded full path, so nested groups work) with a default branch, branches as the test
// declares them, merge requests with iid, state, draft, title, description, source and target
// branch and web_url, token authentication, and a record of every request with credentials
// redacted.
//
// Built from GitLab's REST API documentation (docs.gitlab.com/api: "Merge requests API" — list
// project merge requests with `state` and `source_branch`, create, update; "Projects API" — get a
// single project; "REST API authentication" — PRIVATE-TOKEN or Authorization: Bearer, 401 with
// {"message": "401 Unauthorized"}; "Pagination" — x-page/x-per-page/x-total/x-next-page and Link
// headers; "Drafts" — a title starting with "Draft:", "[Draft]" or "(Draft)" makes a draft), and
// from the 409 "Another open merge request already exists for this source branch: !N" that GitLab
// answers to a duplicate. The exact wording of other validation errors is approximated.
// CI ("Pipelines API" — list project pipelines with `sha`, `order_by`, `sort`; "Jobs API" — list
// pipeline jobs, which leaves retried jobs out unless include_retried; get a log file, GET
// /projects/:id/jobs/:job_id/trace, answered as text/plain): pipelines with their jobs are added
// by the test per commit; a pipeline's status follows its jobs as GitLab's does (running while a
// job is pending or running, failed when a job failed without allow_failure, else success).
// NOT schema-checked: GitLab publishes no complete OpenAPI description of these operations that
// a proxy could check it against; it is verified only through the real client (@gitbeaker/rest).
import {
  CodeHostFakeServer,
  type FakeAnswer,
  type FakeRequest,
  type ScriptedFault,
} from './code-host-fake-http.ts';

export interface GitLabFakeOptions {
  /** Where web_url points, e.g. https://gitlab.example.test (default). */
  webUrl?: string;
  /** A GitLab installed under a relative URL serves its API at <pathPrefix>/api/v4. */
  pathPrefix?: string;
  /** Personal, project or group access tokens the fake accepts. */
  tokens?: string[];
}

export interface FakeMergeRequest {
  id: number;
  iid: number;
  state: 'opened' | 'closed' | 'merged';
  title: string;
  description: string | null;
  sourceBranch: string;
  targetBranch: string;
  web_url: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakeGitLabJob {
  id: number;
  name: string;
  stage: string;
  status: 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';
  allowFailure: boolean;
  failureReason: string | null;
  log: string;
}

export interface FakePipeline {
  id: number;
  iid: number;
  sha: string;
  ref: string;
  jobs: FakeGitLabJob[];
  createdAt: string;
}

interface FakeProject {
  id: number;
  fullPath: string;
  defaultBranch: string;
  branches: Set<string>;
  mergeRequests: FakeMergeRequest[];
  pipelines: FakePipeline[];
}

const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:)\s*/i;

export class GitLabFake {
  readonly #server: CodeHostFakeServer;
  readonly #options: GitLabFakeOptions;
  readonly #tokens: Set<string>;
  readonly #projects: FakeProject[] = [];
  #nextId = 100;

  constructor(options: GitLabFakeOptions = {}) {
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

  addProject(project: { fullPath: string; defaultBranch?: string; branches?: string[] }): number {
    const defaultBranch = project.defaultBranch ?? 'main';
    const id = this.#nextId++;
    this.#projects.push({
      id,
      fullPath: project.fullPath,
      defaultBranch,
      branches: new Set([defaultBranch, ...(project.branches ?? [])]),
      mergeRequests: [],
      pipelines: [],
    });
    return id;
  }

  /** Adds a pipeline for a commit with its jobs (as a push would start one); returns it to update. */
  addPipeline(
    fullPath: string,
    pipeline: {
      sha: string;
      ref?: string;
      jobs: Array<{
        name: string;
        stage?: string;
        status: FakeGitLabJob['status'];
        allowFailure?: boolean;
        failureReason?: string;
        log?: string;
      }>;
    },
  ): FakePipeline {
    const project = this.#project(fullPath);
    const added: FakePipeline = {
      id: this.#nextId++,
      iid: project.pipelines.length + 1,
      sha: pipeline.sha,
      ref: pipeline.ref ?? project.defaultBranch,
      createdAt: new Date().toISOString(),
      jobs: pipeline.jobs.map((job) => ({
        id: this.#nextId++,
        name: job.name,
        stage: job.stage ?? 'test',
        status: job.status,
        allowFailure: job.allowFailure ?? false,
        failureReason: job.failureReason ?? (job.status === 'failed' ? 'script_failure' : null),
        log: job.log ?? '',
      })),
    };
    project.pipelines.push(added);
    return added;
  }

  addBranch(fullPath: string, branch: string): void {
    this.#project(fullPath).branches.add(branch);
  }

  mergeRequests(fullPath: string): FakeMergeRequest[] {
    return this.#project(fullPath).mergeRequests;
  }

  #project(fullPath: string): FakeProject {
    const project = this.#find(fullPath);
    if (!project) throw new Error(`The GitLab fake has no project ${fullPath}`);
    return project;
  }

  #find(idOrPath: string): FakeProject | undefined {
    return this.#projects.find(
      (p) => String(p.id) === idOrPath || p.fullPath.toLowerCase() === idOrPath.toLowerCase(),
    );
  }

  #webBase(): string {
    return (this.#options.webUrl ?? 'https://gitlab.example.test').replace(/\/+$/, '');
  }

  #route(request: FakeRequest): FakeAnswer {
    const prefix = [...(this.#options.pathPrefix ?? '').split('/').filter(Boolean), 'api', 'v4'];
    if (prefix.some((part, i) => request.segments[i] !== part))
      return { status: 404, body: { error: '404 Not Found' } };
    const path = request.segments.slice(prefix.length);

    const token = request.headers['private-token'] ?? bearer(request.headers.authorization);
    if (typeof token !== 'string' || !this.#tokens.has(token)) {
      return { status: 401, body: { message: '401 Unauthorized' } };
    }

    if (path[0] !== 'projects' || path.length < 2) return { status: 404, body: { error: '404 Not Found' } };
    const project = this.#find(path[1]!);
    if (!project) return { status: 404, body: { message: '404 Project Not Found' } };
    const rest = path.slice(2);
    const { method } = request;
    if (rest.length === 0 && method === 'GET') return { status: 200, body: this.#projectJson(project) };
    if (rest.length === 1 && rest[0] === 'merge_requests' && method === 'GET') {
      return this.#list(project, request.query, request.segments);
    }
    if (rest.length === 1 && rest[0] === 'merge_requests' && method === 'POST')
      return this.#create(project, request.json);
    if (rest.length === 2 && rest[0] === 'merge_requests' && method === 'PUT') {
      return this.#update(project, Number(rest[1]), request.json);
    }
    if (method === 'GET' && rest[0] === 'pipelines') {
      if (rest.length === 1) return this.#pipelines(project, request.query);
      const pipeline = project.pipelines.find((p) => p.id === Number(rest[1]));
      if (!pipeline) return { status: 404, body: { message: '404 Not found' } };
      if (rest.length === 3 && rest[2] === 'jobs') return this.#jobs(project, pipeline, request.query);
    }
    if (method === 'GET' && rest.length === 3 && rest[0] === 'jobs' && rest[2] === 'trace') {
      const job = project.pipelines.flatMap((p) => p.jobs).find((j) => j.id === Number(rest[1]));
      if (!job) return { status: 404, body: { message: '404 Not found' } };
      return { status: 200, text: job.log };
    }
    return { status: 404, body: { error: '404 Not Found' } };
  }

  #pipelineStatus(pipeline: FakePipeline): string {
    const jobs = pipeline.jobs;
    if (jobs.some((j) => j.status === 'running' || j.status === 'pending' || j.status === 'created')) {
      return jobs.some((j) => j.status === 'running') ? 'running' : 'pending';
    }
    if (jobs.some((j) => j.status === 'failed' && !j.allowFailure)) return 'failed';
    if (jobs.some((j) => j.status === 'canceled')) return 'canceled';
    return jobs.length === 0 ? 'failed' : 'success';
  }

  #pipelineJson(project: FakeProject, pipeline: FakePipeline) {
    return {
      id: pipeline.id,
      iid: pipeline.iid,
      project_id: project.id,
      sha: pipeline.sha,
      ref: pipeline.ref,
      status: this.#pipelineStatus(pipeline),
      source: 'push',
      created_at: pipeline.createdAt,
      updated_at: pipeline.createdAt,
      web_url: `${this.#webBase()}/${project.fullPath}/-/pipelines/${pipeline.id}`,
    };
  }

  #pipelines(project: FakeProject, query: URLSearchParams): FakeAnswer {
    const sha = query.get('sha');
    const perPage = Math.min(Number(query.get('per_page') ?? 20), 100);
    const ascending = query.get('sort') === 'asc';
    const matching = project.pipelines
      .filter((p) => !sha || p.sha === sha)
      .sort((a, b) => (ascending ? a.id - b.id : b.id - a.id));
    return {
      status: 200,
      headers: pageHeaders(1, perPage, matching.length),
      body: matching.slice(0, perPage).map((p) => this.#pipelineJson(project, p)),
    };
  }

  #jobs(project: FakeProject, pipeline: FakePipeline, query: URLSearchParams): FakeAnswer {
    const perPage = Math.min(Number(query.get('per_page') ?? 20), 100);
    return {
      status: 200,
      headers: pageHeaders(1, perPage, pipeline.jobs.length),
      body: pipeline.jobs.slice(0, perPage).map((job) => ({
        id: job.id,
        name: job.name,
        stage: job.stage,
        status: job.status,
        ref: pipeline.ref,
        tag: false,
        allow_failure: job.allowFailure,
        created_at: pipeline.createdAt,
        started_at: pipeline.createdAt,
        finished_at: job.status === 'running' || job.status === 'pending' ? null : pipeline.createdAt,
        failure_reason: job.failureReason ?? undefined,
        web_url: `${this.#webBase()}/${project.fullPath}/-/jobs/${job.id}`,
        pipeline: this.#pipelineJson(project, pipeline),
        commit: { id: pipeline.sha, short_id: pipeline.sha.slice(0, 8), title: 'docs change' },
      })),
    };
  }

  #list(project: FakeProject, query: URLSearchParams, segments: string[]): FakeAnswer {
    const state = query.get('state') ?? 'all';
    const source = query.get('source_branch');
    const target = query.get('target_branch');
    const perPage = Math.min(Number(query.get('per_page') ?? 20), 100);
    const page = Math.max(Number(query.get('page') ?? 1), 1);
    const matching = project.mergeRequests
      .filter((mr) => state === 'all' || mr.state === state)
      .filter((mr) => !source || mr.sourceBranch === source)
      .filter((mr) => !target || mr.targetBranch === target)
      .sort((a, b) => b.iid - a.iid);
    const totalPages = Math.max(1, Math.ceil(matching.length / perPage));
    const headers: Record<string, string> = {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(matching.length),
      'x-total-pages': String(totalPages),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
    };
    if (page < totalPages) {
      const next = new URLSearchParams(query);
      next.set('page', String(page + 1));
      headers.link = `<${this.#server.url}/${segments.map(encodeURIComponent).join('/')}?${next}>; rel="next"`;
    }
    return {
      status: 200,
      headers,
      body: matching
        .slice((page - 1) * perPage, page * perPage)
        .map((mr) => this.#mergeRequestJson(project, mr)),
    };
  }

  #create(project: FakeProject, json: unknown): FakeAnswer {
    const input = (json ?? {}) as {
      source_branch?: string;
      target_branch?: string;
      title?: string;
      description?: string;
    };
    for (const field of ['source_branch', 'target_branch', 'title'] as const) {
      if (!input[field]) return { status: 400, body: { error: `${field} is missing` } };
    }
    const source = input.source_branch!;
    const target = input.target_branch!;
    if (!project.branches.has(source)) {
      return { status: 422, body: { message: [`Source branch "${source}" does not exist`] } };
    }
    if (!project.branches.has(target)) {
      return { status: 422, body: { message: [`Target branch "${target}" does not exist`] } };
    }
    if (source === target)
      return { status: 422, body: { message: ["You can't use same project/branch for source and target"] } };
    const open = project.mergeRequests.find((mr) => mr.state === 'opened' && mr.sourceBranch === source);
    if (open) {
      return {
        status: 409,
        body: { message: [`Another open merge request already exists for this source branch: !${open.iid}`] },
      };
    }
    const iid = project.mergeRequests.length + 1;
    const now = new Date().toISOString();
    const mr: FakeMergeRequest = {
      id: project.id * 1000 + iid,
      iid,
      state: 'opened',
      title: input.title!,
      description: input.description ?? null,
      sourceBranch: source,
      targetBranch: target,
      web_url: `${this.#webBase()}/${project.fullPath}/-/merge_requests/${iid}`,
      createdAt: now,
      updatedAt: now,
    };
    project.mergeRequests.push(mr);
    return { status: 201, body: this.#mergeRequestJson(project, mr) };
  }

  #update(project: FakeProject, iid: number, json: unknown): FakeAnswer {
    const mr = project.mergeRequests.find((m) => m.iid === iid);
    if (!mr) return { status: 404, body: { message: '404 Not found' } };
    const input = (json ?? {}) as { title?: string; description?: string; state_event?: 'close' | 'reopen' };
    if (input.title !== undefined) mr.title = input.title;
    if (input.description !== undefined) mr.description = input.description;
    if (input.state_event === 'close') mr.state = 'closed';
    if (input.state_event === 'reopen') mr.state = 'opened';
    mr.updatedAt = new Date().toISOString();
    return { status: 200, body: this.#mergeRequestJson(project, mr) };
  }

  #projectJson(project: FakeProject) {
    const parts = project.fullPath.split('/');
    const web = `${this.#webBase()}/${project.fullPath}`;
    return {
      id: project.id,
      name: parts.at(-1),
      path: parts.at(-1),
      path_with_namespace: project.fullPath,
      name_with_namespace: parts.join(' / '),
      default_branch: project.defaultBranch,
      visibility: 'private',
      web_url: web,
      http_url_to_repo: `${web}.git`,
      ssh_url_to_repo: `git@${new URL(web).host}:${project.fullPath}.git`,
      namespace: {
        id: project.id + 50_000,
        name: parts.at(-2),
        path: parts.at(-2),
        kind: 'group',
        full_path: parts.slice(0, -1).join('/'),
      },
      created_at: '2026-01-01T00:00:00.000Z',
      last_activity_at: '2026-01-01T00:00:00.000Z',
    };
  }

  #mergeRequestJson(project: FakeProject, mr: FakeMergeRequest) {
    const draft = DRAFT_PREFIX.test(mr.title);
    return {
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      created_at: mr.createdAt,
      updated_at: mr.updatedAt,
      merged_at: null,
      closed_at: mr.state === 'closed' ? mr.updatedAt : null,
      target_branch: mr.targetBranch,
      source_branch: mr.sourceBranch,
      source_project_id: project.id,
      target_project_id: project.id,
      author: {
        id: 7,
        username: 'docwright-bot',
        name: 'docwright',
        state: 'active',
        avatar_url: null,
        web_url: `${this.#webBase()}/docwright-bot`,
      },
      draft,
      work_in_progress: draft,
      merge_status: 'can_be_merged',
      detailed_merge_status: draft ? 'draft_status' : 'mergeable',
      sha: 'e5bd3914e2e596debea16f433f57875b5b90bcd6',
      references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${project.fullPath}!${mr.iid}` },
      web_url: mr.web_url,
    };
  }
}

function pageHeaders(page: number, perPage: number, total: number): Record<string, string> {
  return {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-total': String(total),
    'x-total-pages': String(Math.max(1, Math.ceil(total / perPage))),
    'x-next-page': '',
    'x-prev-page': '',
  };
}

function bearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return match ? match[1] : undefined;
}

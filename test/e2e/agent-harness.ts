// Everything an end-to-end agent-job test needs, real parts only: the HTTP API (buildApp), a job
// worker with the real agent runner, a git smart-HTTP server (git http-backend) holding the docs
// repository and demanding the code host's git Authorization header, the scripted model server
// speaking OpenAI Chat Completions, and the code host's fake behind the code-host link (GitHub's
// behind Prism, checked against GitHub's OpenAPI description; GitLab's and Gitea's driven through
// gitbeaker and gitea-js by the adapters).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createAgentRunner } from '../../src/agent/run-job.ts';
import type { GitRunner } from '../../src/agent/workspace/git-runner.ts';
import { Workspaces } from '../../src/agent/workspace/workspaces.ts';
import type { CodeHost, CodeHostOptions } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/http/context.ts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../../src/models/timeout.ts';
import { saveJobDiff } from '../../src/modules/jobs/diff/service.ts';
import type { JobRow } from '../../src/modules/jobs/queries.ts';
import type { JobRunInput, JobRunner, JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createKey } from '../../src/modules/keys/service.ts';
import type { Project } from '../../src/modules/projects/schemas.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject, updateProject } from '../../src/modules/projects/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import type { CheckedGitHub } from '../code-hosts/github-stand.ts';
import { createTestApp, TEST_REPOSITORIES } from '../helpers/app.ts';
import { type GitHttpServer, startGitHttpServer } from '../stand-ins/git-http-server.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';
import {
  gitAuthorization,
  type HostKind,
  type HostPull,
  type HostStand,
  newToken,
  OWNER,
  REPO,
  startHostStand,
} from './code-host-stands.ts';

const run = promisify(execFile);

export type { HostKind, HostPull };
export const GITHUB_TOKEN = newToken('github');
export const MODEL_KEY = `sk-test-${randomBytes(12).toString('hex')}`;
export const githubGitAuthorization = (token: string) => gitAuthorization('github', token);
export const REPOSITORY = `${OWNER}/${REPO}`;

export interface HarnessOptions {
  /** The project's code host (default github). */
  kind?: HostKind;
  settings?: Project['settings'];
  /** False: the test starts h.worker itself (e.g. after preparing the remote). */
  startWorker?: boolean;
  worker?: { concurrency?: number; leaseMs?: number; maxAttempts?: number; pollIntervalMs?: number };
  /** How long one model call may wait (default: the server's default). */
  modelTimeoutMs?: number;
  /** Runs the workspace's git commands (a test may hold one back to order events). */
  gitRunner?: GitRunner;
}

/** Runs instead of the real runner while set: prepares the remote, or plays a worker dying. */
export type RunIntercept = (input: JobRunInput, realRunner: JobRunner) => Promise<JobRunResult>;

export interface AgentHarness {
  kind: HostKind;
  app: App;
  worker: JobWorker;
  /** The real agent runner the worker uses. */
  runner: JobRunner;
  /** While set, the worker's runs go through it (reset it to null at the end of the test). */
  intercept: RunIntercept | null;
  git: GitHttpServer;
  llm: ScriptedLlmServer;
  host: HostStand;
  /** The GitHub stand (fake + Prism); throws when the harness runs another host. */
  github: CheckedGitHub;
  project: Project;
  adminKey: string;
  /** The code-host token the project stores (sealed) and the git server demands. */
  token: string;
  secretKey: Buffer;
  dataDir: string;
  /** Every log line the API and the worker wrote. */
  logs: string[];
  /** The file at path on branch in the bare repository, or null. */
  fileOnBranch(branch: string, path: string): Promise<string | null>;
  createJob(prompt: string): Promise<{ id: string; status: string }>;
  waitForJob(id: string, until?: (job: JobJson) => boolean): Promise<JobJson>;
  cancelJob(id: string): Promise<{ statusCode: number; body: JobJson }>;
  /** The job's stored row (attempts, stop_reason, lease...). */
  jobRow(id: string): Promise<StoredJob>;
  events(id: string): Promise<{ type: string; data: Record<string, unknown> }[]>;
  /**
   * Job worktrees in the data directory (named by job id); the workspace's own entries (a pool of
   * kept worktrees, trash being deleted) start with a dot and are not listed.
   */
  worktrees(): Promise<string[]>;
  setSettings(settings: Record<string, unknown>): Promise<void>;
  /** Replaces the project's stored code-host token. */
  setCodeHostToken(token: string): Promise<void>;
  close(): Promise<void>;
}

export type StoredJob = JobRow & { stop_reason: string | null; lease_owner: string | null };

export interface JobJson {
  id: string;
  status: string;
  prLink: string | null;
  branch: string | null;
  summary: string | null;
  error: { code: string; message: string } | null;
  usage: { inputTokens: number; outputTokens: number; steps: number } | null;
  model: string;
}

export async function startAgentHarness(db: Database, options: HarnessOptions = {}): Promise<AgentHarness> {
  const kind = options.kind ?? 'github';
  const token = kind === 'github' ? GITHUB_TOKEN : newToken(kind);
  const logs: string[] = [];
  const logger = createLogger(
    'debug',
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  // What has been started so far is closed again if a later step fails: a half-built harness
  // would otherwise keep the test file's process alive after its tests were cancelled.
  const started: Array<() => Promise<unknown>> = [];
  try {
    return await buildHarness(db, options, kind, token, logs, logger, started);
  } catch (error) {
    await Promise.allSettled(started.reverse().map((close) => close()));
    throw error;
  }
}

async function buildHarness(
  db: Database,
  options: HarnessOptions,
  kind: HostKind,
  token: string,
  logs: string[],
  logger: ReturnType<typeof createLogger>,
  started: Array<() => Promise<unknown>>,
): Promise<AgentHarness> {
  const dataDir = await mkdtemp('/dev/shm/docwright-e2e-');
  started.push(() => rm(dataDir, { recursive: true, force: true }));
  const git = await startGitHttpServer({ authorization: gitAuthorization(kind, token) });
  started.push(() => git.close());
  await git.createRepo(REPOSITORY);
  const llm = await startScriptedLlmServer({ apiKey: MODEL_KEY });
  started.push(() => llm.close());
  const host = await startHostStand(kind, { token, bareRepository: git.repoPath(REPOSITORY) });
  started.push(() => host.stop());

  const secretKey = randomBytes(32);
  const project = await createProject(
    db,
    {
      name: `E2E docs on ${kind}`,
      repositoryUrl: git.repoUrl(REPOSITORY),
      codeHostKind: kind,
      codeHostBaseUrl: host.baseUrl,
      model: 'openai:gpt-e2e',
      settings: options.settings ?? {},
    },
    TEST_REPOSITORIES,
  );
  await setProjectSecret(db, secretKey, project.id, 'codeHostToken', token);
  const adminKey = (await createKey(db, { projectId: project.id })).key;

  const config = {
    dataDir,
    secretKey,
    defaultModel: null,
    modelCredentials: {
      openai: { apiKey: MODEL_KEY, baseURL: llm.baseURL },
      anthropic: { apiKey: null, baseURL: null },
      'openai-compatible': { apiKey: null, baseURL: null },
    },
    modelTimeoutMs: options.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    codeHostTokens: { github: null, gitlab: null, gitea: null },
    repositories: TEST_REPOSITORIES,
    gitAuthor: { name: 'docwright', email: 'docwright@users.noreply.invalid' },
    publicUrl: 'http://docwright.test',
  } satisfies Partial<Config>;

  // The adapter as the runner builds it from the project, pointed at Prism for GitHub (GitLab and
  // Gitea find their API from the project's base URL, which is the link's address).
  const codeHost = (hostOptions: CodeHostOptions): CodeHost =>
    createCodeHost({
      ...hostOptions,
      ...(host.apiUrl ? { apiUrl: host.apiUrl } : {}),
      retry: { attempts: 1 },
    });
  const runner = createAgentRunner({
    db,
    config,
    logger,
    codeHost,
    model: { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 } },
    saveDiff: (jobId, diff) => saveJobDiff(db, jobId, diff),
    ...(options.gitRunner
      ? {
          workspaces: new Workspaces({
            cacheDir: join(dataDir, 'repos'),
            worktreesDir: join(dataDir, 'worktrees'),
            runner: options.gitRunner,
          }),
        }
      : {}),
  });
  const worker = new JobWorker({
    db,
    runner: (input) => (harness.intercept ? harness.intercept(input, runner) : runner(input)),
    logger,
    concurrency: options.worker?.concurrency ?? 2,
    leaseMs: options.worker?.leaseMs ?? 10_000,
    maxAttempts: options.worker?.maxAttempts ?? 2,
    ...(options.worker?.pollIntervalMs ? { pollIntervalMs: options.worker.pollIntervalMs } : {}),
  });
  started.push(() => worker.stop(0));
  if (options.startWorker !== false) await worker.start();
  const app = await createTestApp(db, { onJobQueued: () => worker.nudge(), secretKey });
  const auth = { authorization: `Bearer ${adminKey}` };

  const harness: AgentHarness = {
    kind,
    app,
    worker,
    runner,
    intercept: null,
    git,
    llm,
    host,
    get github(): CheckedGitHub {
      if (!host.github) throw new Error(`this harness runs ${kind}, not github`);
      return host.github;
    },
    project,
    adminKey,
    token,
    secretKey,
    dataDir,
    logs,
    async fileOnBranch(branch, path) {
      try {
        const { stdout } = await run('git', [
          '--git-dir',
          git.repoPath(REPOSITORY),
          'show',
          `${branch}:${path}`,
        ]);
        return stdout;
      } catch {
        return null;
      }
    },
    async createJob(prompt) {
      const res = await app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { prompt },
      });
      if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async waitForJob(id, until = (job) => job.status !== 'active') {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await app.inject({ url: `/v2/agent/${project.id}/job/${id}`, headers: auth });
        const job = res.json() as JobJson;
        if (until(job)) return job;
        if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async cancelJob(id) {
      const res = await app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job/${id}/cancel`,
        headers: auth,
      });
      return { statusCode: res.statusCode, body: res.json() };
    },
    async jobRow(id) {
      const rows = await db.query<StoredJob>('SELECT * FROM jobs WHERE id = $1', [id]);
      if (!rows[0]) throw new Error(`no job ${id}`);
      return rows[0];
    },
    events(id) {
      return db.query('SELECT type, data FROM job_events WHERE job_id = $1 ORDER BY id', [id]);
    },
    async worktrees() {
      try {
        return (await readdir(join(dataDir, 'worktrees'))).filter((name) => !name.startsWith('.'));
      } catch {
        return [];
      }
    },
    async setSettings(settings) {
      await updateProject(db, project.id, { settings: settings as Project['settings'] }, TEST_REPOSITORIES);
    },
    async setCodeHostToken(value) {
      await setProjectSecret(db, secretKey, project.id, 'codeHostToken', value);
    },
    async close() {
      await worker.stop(0);
      await app.close();
      await Promise.allSettled([git.close(), llm.close(), host.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

export async function branchTip(git: GitHttpServer, branch: string): Promise<string | null> {
  try {
    const { stdout } = await run('git', [
      '--git-dir',
      git.repoPath(REPOSITORY),
      'rev-parse',
      '--verify',
      '--quiet',
      `refs/heads/${branch}`,
    ]);
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

// Everything an end-to-end agent-job test needs, real parts only: the HTTP API (buildApp), a job
// worker with the real agent runner, a git smart-HTTP server (git http-backend) holding the docs
// repository, the scripted model server speaking OpenAI Chat Completions, and the GitHub fake
// behind Prism (checked against GitHub's OpenAPI description).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createAgentRunner } from '../../src/agent/run-job.ts';
import type { CodeHost, CodeHostOptions } from '../../src/code-hosts/contract.ts';
import { createCodeHost } from '../../src/code-hosts/factory.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/http/context.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createKey } from '../../src/modules/keys/service.ts';
import type { Project } from '../../src/modules/projects/schemas.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject } from '../../src/modules/projects/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import { type CheckedGitHub, startCheckedGitHub } from '../code-hosts/github-stand.ts';
import { createTestApp } from '../helpers/app.ts';
import { type GitHttpServer, startGitHttpServer } from '../stand-ins/git-http-server.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

const run = promisify(execFile);

export const GITHUB_TOKEN = `ghp_${randomBytes(18).toString('hex')}`;
export const MODEL_KEY = `sk-test-${randomBytes(12).toString('hex')}`;
export const githubGitAuthorization = (token: string) =>
  `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;

export interface AgentHarness {
  app: App;
  worker: JobWorker;
  git: GitHttpServer;
  llm: ScriptedLlmServer;
  github: CheckedGitHub;
  project: Project;
  adminKey: string;
  dataDir: string;
  /** Every log line the API and the worker wrote. */
  logs: string[];
  /** The file at path on branch in the bare repository, or null. */
  fileOnBranch(branch: string, path: string): Promise<string | null>;
  createJob(prompt: string): Promise<{ id: string; status: string }>;
  waitForJob(id: string, until?: (job: JobJson) => boolean): Promise<JobJson>;
  close(): Promise<void>;
}

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

export async function startAgentHarness(
  db: Database,
  options: { settings?: Project['settings']; startWorker?: boolean } = {},
): Promise<AgentHarness> {
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
  const dataDir = await mkdtemp('/dev/shm/docwright-e2e-');
  const git = await startGitHttpServer({ authorization: githubGitAuthorization(GITHUB_TOKEN) });
  await git.createRepo('acme/docs');
  const llm = await startScriptedLlmServer({ apiKey: MODEL_KEY });
  const github = await startCheckedGitHub({ tokens: [GITHUB_TOKEN] });
  github.fake.addRepo({ owner: 'acme', name: 'docs' });

  const secretKey = randomBytes(32);
  const project = await createProject(db, {
    name: 'E2E docs',
    repositoryUrl: git.repoUrl('acme/docs'),
    codeHostKind: 'github',
    model: 'openai:gpt-e2e',
    settings: options.settings ?? {},
  });
  await setProjectSecret(db, secretKey, project.id, 'codeHostToken', GITHUB_TOKEN);
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
    codeHostTokens: { github: null, gitlab: null, gitea: null },
    gitAuthor: { name: 'docwright', email: 'docwright@users.noreply.invalid' },
    publicUrl: 'http://docwright.test',
  } satisfies Partial<Config>;

  // The fake only knows the branches it is told about; git pushes go to the git server. The
  // link: before a pull request is asked for, the branch must really be in the bare repository,
  // and only then does the fake learn of it.
  const codeHost = (hostOptions: CodeHostOptions): CodeHost => {
    const host = createCodeHost({ ...hostOptions, apiUrl: github.apiUrl, retry: { attempts: 1 } });
    return {
      kind: host.kind,
      defaultBranch: (url, signal) => host.defaultBranch(url, signal),
      gitAuthHeader: (signal) => host.gitAuthHeader(signal),
      async openOrUpdatePullRequest(input) {
        if ((await branchTip(git, input.head)) !== null) github.fake.addBranch('acme', 'docs', input.head);
        return host.openOrUpdatePullRequest(input);
      },
    };
  };
  const runner = createAgentRunner({
    db,
    config,
    logger,
    codeHost,
    model: { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } },
  });
  const worker = new JobWorker({ db, runner, logger, concurrency: 2, leaseMs: 10_000, maxAttempts: 2 });
  if (options.startWorker !== false) await worker.start();
  const app = await createTestApp(db, { onJobQueued: () => worker.nudge() });

  const harness: AgentHarness = {
    app,
    worker,
    git,
    llm,
    github,
    project,
    adminKey,
    dataDir,
    logs,
    async fileOnBranch(branch, path) {
      try {
        const { stdout } = await run('git', [
          '--git-dir',
          git.repoPath('acme/docs'),
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
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        payload: { prompt },
      });
      if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async waitForJob(id, until = (job) => job.status !== 'active') {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await app.inject({
          url: `/v2/agent/${project.id}/job/${id}`,
          headers: { authorization: `Bearer ${adminKey}` },
        });
        const job = res.json() as JobJson;
        if (until(job)) return job;
        if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      await worker.stop(0);
      await app.close();
      await Promise.allSettled([git.close(), llm.close(), github.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

export async function branchTip(git: GitHttpServer, branch: string): Promise<string | null> {
  try {
    const { stdout } = await run('git', [
      '--git-dir',
      git.repoPath('acme/docs'),
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

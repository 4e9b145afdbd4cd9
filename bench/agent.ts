// Agent jobs on a large documentation repository (10,000 Markdown files) with the scripted model
// answering at once: what docwright itself costs per job, against the same git work done with
// plain git commands in the same run.
//
// - Overhead of a job = time from the create request to the job being recorded `completed`
//   (PR opened), minus model time (from each model request's arrival at the scripted server to
//   its answer). It holds everything docwright does: the API, the queue, the worker's pickup,
//   mirror clone or fetch, worktree, tools, commit, diff, push, pull request, database writes.
// - Baseline = plain `git clone` + `checkout -b` + edit + `commit` + `push` of the same
//   repository over the same git server (bench/lib/git-baseline.ts), measured in the same run, one
//   plain run beside each job; the median of all of them.
// - First job on a repository (no mirror yet): median over several fresh repositories.
//   Later jobs (cached mirror): median over --jobs jobs on one repository.
// - Pickup = create request sent → first model request received, p50 and p99 over the later jobs.
// Targets: first-job overhead ≤ 1.5× baseline, later-job overhead ≤ 0.3× baseline,
// pickup p50 < 100 ms.
//
// In this process: the API (buildApp, inject), the worker and runner (which start git through
// docwright's helper process), the Gitea fake behind the code-host link, the scripted model. The
// git smart-HTTP stand-in runs in a process of its own, as a code host would (it starts git
// http-backend per request; see bench/lib/git-server-process.ts). Repositories and data live on
// /dev/shm.
//
// Run: node bench/agent.ts [--files 10000] [--jobs 30] [--first 3] [--database pglite|postgres]
// [--trace] (about two minutes at the defaults on this machine; prints `profile:` lines, then
// `figure:` lines). `profile:` also gives each job's count of git processes and of database
// statements (bench/lib/traced-database.ts), which the machine's load does not change; --trace
// prints the timelines of the last first job and the last later job: git commands, database
// statements, model requests, events.
// A job that has not ended after 2 minutes has its state printed (`stall:` lines on stderr:
// its row and events, git under way, the last statements), and the run fails after 16 minutes
// (bench/lib/job-end.ts) instead of waiting for ever.
// The app's per-project job rate limit is lifted here, so --jobs may exceed 99: the pickup p99 is
// a nearest-rank percentile, which is the largest sample below 100 jobs; --jobs 200 makes it the
// second largest, --jobs 300 the third. The sample count is printed beside the figures.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs, promisify } from 'node:util';
import { createAgentRunner } from '../src/agent/run-job.ts';
import { GitRunner, type GitRunOptions } from '../src/agent/workspace/git-runner.ts';
import { Workspaces } from '../src/agent/workspace/workspaces.ts';
import { createCodeHost } from '../src/code-hosts/factory.ts';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../src/models/timeout.ts';
import { saveJobDiff } from '../src/modules/jobs/diff/service.ts';
import { JobWorker } from '../src/modules/jobs/worker.ts';
import { createKey } from '../src/modules/keys/service.ts';
import { setProjectSecret } from '../src/modules/projects/secrets.ts';
import { createProject } from '../src/modules/projects/service.ts';
import { createLogger } from '../src/util/logger.ts';
import { type CodeHostLink, startCodeHostLink } from '../test/e2e/code-host-link.ts';
import { gitAuthorization, newToken } from '../test/e2e/code-host-stands.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { createPostgresDatabase } from '../test/helpers/databases.ts';
import { createBareRepo } from '../test/stand-ins/git-http-server.ts';
import { GiteaFake } from '../test/stand-ins/gitea-fake.ts';
import { reply, startScriptedLlmServer } from '../test/stand-ins/scripted-llm-server.ts';
import { type PlainGitTimes, plainGitJob } from './lib/git-baseline.ts';
import { startGitServerProcess } from './lib/git-server-process.ts';
import { waitForJobEnd } from './lib/job-end.ts';
import { startPickupRecorder } from './lib/pickup-steps.ts';
import { figureLine, percentile } from './lib/stats.ts';
import { type TracedStatement, tracedDatabase } from './lib/traced-database.ts';

/** The benchmark's repositories are local: DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true. */
const TEST_REPOSITORIES = { allowPrivateAddresses: true };

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '10000' },
    jobs: { type: 'string', default: '30' },
    first: { type: 'string', default: '3' },
    database: { type: 'string', default: 'pglite' },
    /** Print the timeline of the last job: git commands, events, model requests. */
    trace: { type: 'boolean', default: false },
    /** Write each later job's pickup steps and what ran beside them, one JSON line a job. */
    steps: { type: 'string' },
  },
});
const FILES = Number(args.files);
const LATER_JOBS = Number(args.jobs);
const FIRST_JOBS = Number(args.first);
const WARMUP_FILES = 100;
/** How long the end of the run waits for each server, worker or database to close. */
const CLOSE_TIMEOUT_MS = 30_000;
const OLD_TEXT = 'Status: draft';
const NEW_TEXT = 'Status: reviewed';

const median = (xs: readonly number[]) => percentile(xs, 50);
const log = (line: string) => console.log(line);

/** A documentation site of `count` pages in 100 sections, each page about 1 KB. */
function generatedDocs(count: number): Record<string, string> {
  const files: Record<string, string> = {
    'README.md': '# Generated docs\n\nA large documentation site for the agent benchmark.\n',
    'AGENTS.md': '# Instructions for agents\n\n- Keep edits small.\n',
  };
  for (let i = 0; i < count - 2; i++) {
    const section = String(i % 100).padStart(2, '0');
    files[pagePath(i)] =
      `# Page ${i}\n\n${OLD_TEXT}\n\n## Overview\n\nSection ${section}, page ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8)}\n\n## Details\n\n${'Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(6)}\n`;
  }
  return files;
}
function pagePath(i: number): string {
  return `docs/section-${String(i % 100).padStart(2, '0')}/page-${String(i).padStart(5, '0')}.md`;
}

/** git as the workspace runs it, with each command's duration recorded. */
class TimedGitRunner extends GitRunner {
  readonly calls: { at: number; command: string; ms: number; args: readonly string[] }[] = [];
  /** Commands under way, for the report of a job that does not end (bench/lib/job-end.ts). */
  readonly running = new Set<{ at: number; args: readonly string[] }>();
  override async run(args: readonly string[], options: GitRunOptions) {
    const start = performance.now();
    const running = { at: Date.now(), args };
    this.running.add(running);
    try {
      return await super.run(args, options);
    } finally {
      this.running.delete(running);
      const sub = args.find((a) => !a.startsWith('-')) ?? '?';
      const command = sub === 'worktree' ? `worktree ${args[args.indexOf('worktree') + 1]}` : sub;
      this.calls.push({ at: Date.now(), command, ms: performance.now() - start, args });
    }
  }
}

async function openDatabase(kind: string): Promise<{ db: Database; close: () => Promise<void> }> {
  if (kind === 'postgres') {
    const created = await createPostgresDatabase();
    const db = await openPostgres(created.url, { max: 5 });
    await migrate(db);
    return {
      db,
      close: async () => {
        await db.close();
        await created.drop();
      },
    };
  }
  const db = await openPglite(null);
  await migrate(db);
  return { db, close: () => db.close() };
}

interface JobSample {
  id: string;
  start: number;
  end: number;
  total: number;
  model: number;
  overhead: number;
  pickup: number;
  /** Create → the worker's 'started' event: the queue's part of the pickup. */
  claim: number;
  git: Map<string, number>;
  counts: Map<string, number>;
  /** Database statements (BEGIN and COMMIT included) between create and completion. */
  statements: number;
  /**
   * The `committed` event → the `pushed` event: the push (git push, or the pack and the
   * receive-pack request), which the diff and the branch's update-ref run beside.
   */
  push: number;
}

async function main() {
  const root = await mkdtemp('/dev/shm/docwright-bench-agent-');
  const scratch = await mkdtemp('/dev/shm/docwright-bench-plain-');
  const dataDir = join(root, 'data');
  const token = newToken('gitea');
  const authorization = gitAuthorization('gitea', token);
  const modelKey = `sk-bench-${randomBytes(8).toString('hex')}`;
  const closers: (() => Promise<unknown>)[] = [];
  try {
    // Repositories: one generated, copied for each first-job measurement; a small one to warm up.
    const gitRoot = join(root, 'git');
    await mkdir(gitRoot);
    const repoPath = (name: string) => join(gitRoot, `${name}.git`);
    const started = performance.now();
    await createBareRepo(gitRoot, 'acme/docs-1', generatedDocs(FILES));
    const names = ['acme/docs-1'];
    for (let i = 2; i <= FIRST_JOBS; i++) {
      await run('cp', ['-a', repoPath('acme/docs-1'), repoPath(`acme/docs-${i}`)]);
      names.push(`acme/docs-${i}`);
    }
    await createBareRepo(gitRoot, 'acme/warmup', generatedDocs(WARMUP_FILES));
    const git = await startGitServerProcess(gitRoot, authorization);
    closers.push(() => git.close());
    log(
      `setup: ${FILES} files in ${FIRST_JOBS} repositories in ${Math.round(performance.now() - started)} ms`,
    );

    const gitea = new GiteaFake({ tokens: [token], webUrl: 'https://gitea.example.test' });
    await gitea.start();
    closers.push(() => gitea.stop());
    const links = new Map<string, CodeHostLink>();
    for (const name of [...names, 'acme/warmup']) {
      const [owner, repo] = name.split('/') as [string, string];
      gitea.addRepo({ owner, name: repo });
      const link = await startCodeHostLink({
        target: gitea.url,
        bareRepository: repoPath(name),
        addBranch: (branch) => gitea.addBranch(owner, repo, branch),
      });
      closers.push(() => link.close());
      links.set(name, link);
    }

    // The model: edit the page the prompt names, then finish. Instant answers; the time from a
    // request's arrival to its answer is the model time.
    const llm = await startScriptedLlmServer({ apiKey: modelKey });
    closers.push(() => llm.close());
    const answered: { receivedAt: number; answeredAt: number }[] = [];
    llm.setFallback((request) => {
      const path = /docs\/\S+?\.md|README\.md/.exec(request.userTexts.join('\n'))?.[0] ?? 'README.md';
      const step =
        request.assistantTurns === 0
          ? reply.toolCall('edit_file', { path, old_text: OLD_TEXT, new_text: NEW_TEXT })
          : reply.toolCall('finish', { title: `Review ${path}`, summary: `Marked ${path} as reviewed.` });
      answered.push({ receivedAt: request.receivedAt, answeredAt: Date.now() });
      return step;
    });

    const database = await openDatabase(args.database);
    closers.push(database.close);
    // Every statement docwright runs is recorded: the trace shows them, and each job's count of
    // database round trips is printed (a figure the machine's load does not change).
    const statements: TracedStatement[] = [];
    const rawDb = database.db;
    const db = tracedDatabase(rawDb, statements);
    const secretKey = randomBytes(32);
    const projects = new Map<string, { id: string; key: string }>();
    for (const name of [...names, 'acme/warmup']) {
      const project = await createProject(
        db,
        {
          name,
          repositoryUrl: git.repoUrl(name),
          codeHostKind: 'gitea',
          codeHostBaseUrl: links.get(name)!.url,
          model: 'openai:gpt-bench',
        },
        TEST_REPOSITORIES,
      );
      await setProjectSecret(db, secretKey, project.id, 'codeHostToken', token);
      projects.set(name, { id: project.id, key: (await createKey(db, { projectId: project.id })).key });
    }

    // The worker logs "job finished" right after the outcome is committed: that is "completed".
    const finishedAt = new Map<string, number>();
    const finishWaiters = new Map<string, () => void>();
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n')) {
            if (!line.includes('"job finished"')) continue;
            const { jobId } = JSON.parse(line) as { jobId: string };
            finishedAt.set(jobId, Date.now());
            finishWaiters.get(jobId)?.();
          }
          done();
        },
      }),
    );
    const gitRunner = new TimedGitRunner();
    const runner = createAgentRunner({
      db,
      logger,
      config: {
        dataDir,
        secretKey,
        defaultModel: null,
        modelCredentials: {
          openai: { apiKey: modelKey, baseURL: llm.baseURL },
          anthropic: { apiKey: null, baseURL: null },
          'openai-compatible': { apiKey: null, baseURL: null },
        },
        modelTimeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
        codeHostTokens: { github: null, gitlab: null, gitea: null },
        repositories: TEST_REPOSITORIES,
        gitAuthor: { name: 'docwright', email: 'docwright@users.noreply.invalid' },
        publicUrl: 'http://docwright.bench',
      },
      workspaces: new Workspaces({
        cacheDir: join(dataDir, 'repos'),
        worktreesDir: join(dataDir, 'worktrees'),
        runner: gitRunner,
      }),
      codeHost: (options) => createCodeHost({ ...options, retry: { attempts: 1 } }),
      // As docwright serve and docwright worker do (src/main/job-worker.ts).
      saveDiff: (jobId, diff) => saveJobDiff(db, jobId, diff),
    });
    const worker = new JobWorker({ db, runner, logger, concurrency: 1, leaseMs: 60_000, maxAttempts: 1 });
    await worker.start();
    closers.push(() => worker.stop(0));
    const app = await createTestApp(db, {
      onJobQueued: () => worker.nudge(),
      config: {
        jobRateLimitPerHour: 1_000_000,
        defaultModel: 'openai:gpt-test',
        publicUrl: 'http://127.0.0.1:3000',
      },
    });
    closers.push(() => app.close());

    const recorder = startPickupRecorder();
    closers.push(async () => recorder.stop());
    // What a job that does not end is waiting on (printed once, by waitForJobEnd).
    const stallReport = async (id: string, start: number): Promise<string[]> => {
      const shown = (args: readonly string[]) => args.join(' ').replace(/\n/g, '⏎').slice(0, 160);
      const [job] = await rawDb.query(
        'SELECT status, attempts, lease_owner, lease_expires_at, error_code FROM jobs WHERE id = $1',
        [id],
      );
      const events = await rawDb.query<{ type: string; created_at: Date }>(
        'SELECT type, created_at FROM job_events WHERE job_id = $1 ORDER BY id',
        [id],
      );
      return [
        `job row ${JSON.stringify(job)}; worker running ${JSON.stringify(worker.activeJobIds)}`,
        `events: ${events.map((e) => `${e.type} +${e.created_at.getTime() - start} ms`).join(', ')}`,
        `model requests since the create: ${answered.filter((a) => a.receivedAt >= start).length}`,
        ...[...gitRunner.running].map((c) => `git under way since +${c.at - start} ms: ${shown(c.args)}`),
        ...gitRunner.calls
          .filter((c) => c.at >= start)
          .slice(-8)
          .map((c) => `git done +${c.at - start} ms (${Math.round(c.ms)} ms): ${shown(c.args)}`),
        ...statements
          .filter((q) => q.at >= start)
          .slice(-8)
          .map((q) => `db +${q.at - start} ms (${q.ms.toFixed(1)} ms): ${q.text}`),
        `active resources: ${JSON.stringify(process.getActiveResourcesInfo())}`,
      ];
    };
    let counter = 0;
    const agentJob = async (repository: string): Promise<JobSample> => {
      const project = projects.get(repository)!;
      const pages = (repository === 'acme/warmup' ? WARMUP_FILES : FILES) - 2;
      const page = pagePath((counter++ * 37) % pages);
      const start = Date.now();
      const res = await app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: `Bearer ${project.key}`, 'content-type': 'application/json' },
        payload: { prompt: `Mark ${page} as reviewed.` },
      });
      if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
      const { id } = res.json() as { id: string };
      await waitForJobEnd({
        id,
        finished: finishedAt.has(id)
          ? Promise.resolve()
          : new Promise<void>((resolve) => finishWaiters.set(id, resolve)),
        status: async () =>
          (await rawDb.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [id]))[0]?.status ??
          null,
        report: () => stallReport(id, start),
      });
      // A job that ended without the log line (its row no longer active) ends now; the check
      // below says how.
      const end = finishedAt.get(id) ?? Date.now();
      const [row] = await rawDb.query<{
        status: string;
        pr_link: string | null;
        error_message: string | null;
      }>('SELECT status, pr_link, error_message FROM jobs WHERE id = $1', [id]);
      if (row?.status !== 'completed' || row.pr_link === null) {
        throw new Error(`job ${id} ended ${row?.status}: ${row?.error_message}`);
      }
      const requests = answered.filter((a) => a.receivedAt >= start && a.receivedAt <= end);
      const model = requests.reduce((sum, a) => sum + (a.answeredAt - a.receivedAt), 0);
      const git = new Map<string, number>();
      const counts = new Map<string, number>();
      for (const call of gitRunner.calls) {
        if (call.at < start || call.at > end) continue;
        git.set(call.command, (git.get(call.command) ?? 0) + call.ms);
        counts.set(call.command, (counts.get(call.command) ?? 0) + 1);
      }
      const [started] = await rawDb.query<{ created_at: Date }>(
        "SELECT created_at FROM job_events WHERE job_id = $1 AND type = 'started' ORDER BY id LIMIT 1",
        [id],
      );
      const published = await rawDb.query<{ type: string; created_at: Date }>(
        "SELECT type, created_at FROM job_events WHERE job_id = $1 AND type IN ('committed', 'pushed') ORDER BY id",
        [id],
      );
      const eventAt = (type: string) => published.find((e) => e.type === type)?.created_at.getTime() ?? 0;
      return {
        id,
        start,
        end,
        total: end - start,
        model,
        overhead: end - start - model,
        pickup: (requests[0]?.receivedAt ?? end) - start,
        claim: (started?.created_at.getTime() ?? end) - start,
        git,
        counts,
        statements: statements.filter((q) => q.at >= start && q.at <= end).length,
        push: eventAt('pushed') - eventAt('committed'),
      };
    };
    let plainCounter = 0;
    const plainJob = (repository: string): Promise<PlainGitTimes> =>
      plainGitJob({
        url: git.repoUrl(repository),
        authorization,
        scratch,
        branch: `plain/edit-${plainCounter++}`,
        path: pagePath((plainCounter * 53) % ((repository === 'acme/warmup' ? WARMUP_FILES : FILES) - 2)),
        oldText: OLD_TEXT,
        newText: NEW_TEXT,
      });

    // Warm-up: modules, JIT, connections, on a small repository of its own.
    for (let i = 0; i < 3; i++) await agentJob('acme/warmup');
    await plainJob('acme/warmup');

    const plain: PlainGitTimes[] = [];
    const first: JobSample[] = [];
    for (const name of names) {
      plain.push(await plainJob(name));
      first.push(await agentJob(name));
    }
    // One plain run beside every job: the machine's load drifts (other work shares its cores), and
    // pairing keeps the baseline measured under the same conditions as the jobs it is compared to.
    // The plain run comes first, as for the first jobs: a job created the moment the previous one
    // finished would wait for the worker's only slot while that job's worktree is cleaned for
    // reuse (queueing, not pickup; docs/agent-jobs.md "The pickup's slow tail"), and only the
    // first later job was created so.
    const later: JobSample[] = [];
    for (let i = 0; i < LATER_JOBS; i++) {
      plain.push(await plainJob('acme/docs-1'));
      later.push(await agentJob('acme/docs-1'));
    }

    if (args.steps) {
      const recorded = { gitCalls: gitRunner.calls, statements, answered };
      await recorder.write(args.steps, later, recorded);
      for (const line of recorder.summary(later, recorded)) log(`steps: ${line}`);
    }

    const baseline = median(plain.map((p) => p.total));
    const steps = ['clone', 'branch', 'edit', 'commit', 'push'] as const;
    log(
      `profile: plain git (median of ${plain.length}): ${steps.map((s) => `${s} ${Math.round(median(plain.map((p) => p[s])))} ms`).join(', ')}; total ${Math.round(baseline)} ms`,
    );
    const profile = (label: string, samples: JobSample[]) => {
      const commands = new Set(samples.flatMap((s) => [...s.git.keys()]));
      const parts = [...commands]
        .map((c) => ({ c, ms: median(samples.map((s) => s.git.get(c) ?? 0)) }))
        .sort((a, b) => b.ms - a.ms)
        .map(
          ({ c, ms }) => `${c} ${Math.round(ms)} ms (${median(samples.map((s) => s.counts.get(c) ?? 0))}×)`,
        );
      const gitTotal = median(samples.map((s) => [...s.git.values()].reduce((a, b) => a + b, 0)));
      const processes = median(samples.map((s) => [...s.counts.values()].reduce((a, b) => a + b, 0)));
      log(
        `profile: ${label}: ${processes} git processes, ${median(samples.map((s) => s.statements))} database statements (medians)`,
      );
      log(
        `profile: ${label} (median of ${samples.length}): total ${Math.round(median(samples.map((s) => s.total)))} ms, model ${Math.round(median(samples.map((s) => s.model)))} ms, git ${Math.round(gitTotal)} ms: ${parts.join(', ')}`,
      );
    };
    profile('first job', first);
    profile('later job', later);
    log(
      `profile: committed → pushed event, median ms: first job ${Math.round(median(first.map((s) => s.push)))}, later job ${Math.round(median(later.map((s) => s.push)))}`,
    );
    const sumGit = (s: JobSample) => [...s.git.values()].reduce((a, b) => a + b, 0);
    log(
      `profile: later jobs in order, total/git ms: ${later.map((s) => `${Math.round(s.total)}/${Math.round(sumGit(s))}`).join(' ')}`,
    );
    // The timeline of one job: git commands (at their start), model requests, statements, events.
    const printTrace = async (label: string, last: JobSample) => {
      const lines: [number, string][] = [];
      for (const call of gitRunner.calls) {
        if (call.at < last.start || call.at > last.end) continue;
        const shown = call.args.map((a) => a.replace(/\n/g, '⏎')).join(' ');
        lines.push([call.at - call.ms, `git ${shown} (${Math.round(call.ms)} ms)`]);
      }
      for (const a of answered) {
        if (a.receivedAt >= last.start && a.receivedAt <= last.end)
          lines.push([a.receivedAt, 'model request']);
      }
      for (const q of statements) {
        if (q.at >= last.start && q.at <= last.end)
          lines.push([q.at, `db ${q.text} (${q.ms.toFixed(1)} ms)`]);
      }
      const events = await rawDb.query<{ type: string; created_at: Date }>(
        'SELECT type, created_at FROM job_events WHERE job_id = $1 ORDER BY id',
        [last.id],
      );
      for (const e of events) lines.push([e.created_at.getTime(), `event ${e.type}`]);
      lines.sort((a, b) => a[0] - b[0]);
      for (const [at, text] of lines) log(`trace: ${label} +${Math.round(at - last.start)} ms ${text}`);
    };
    if (args.trace) {
      await printTrace('first', first.at(-1)!);
      await printTrace('later', later.at(-1)!);
    }

    const firstOverhead = median(first.map((s) => s.overhead));
    const laterOverhead = median(later.map((s) => s.overhead));
    const pickups = later.map((s) => s.pickup);
    const db_ = args.database;
    log(figureLine(`agent_first_job_overhead_${db_}`, firstOverhead, 'ms', baseline));
    log(figureLine(`agent_later_job_overhead_${db_}`, laterOverhead, 'ms', baseline));
    log(figureLine(`agent_pickup_p50_${db_}`, percentile(pickups, 50), 'ms', null));
    log(figureLine(`agent_pickup_p99_${db_}`, percentile(pickups, 99), 'ms', null));
    log(`samples: ${pickups.length} later jobs (pickup and claim percentiles are over these)`);
    const claims = later.map((s) => s.claim);
    log(figureLine(`agent_claim_p50_${db_}`, percentile(claims, 50), 'ms', null));
    log(figureLine(`agent_claim_p99_${db_}`, percentile(claims, 99), 'ms', null));
  } finally {
    // A closer that does not end (a run stopped by a job that never ended) must not hold back
    // the error that ended the run.
    for (const close of closers.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('late'), CLOSE_TIMEOUT_MS);
      });
      const closed = await Promise.race([close().catch(() => undefined), late]);
      clearTimeout(timer);
      if (closed === 'late') console.error(`a closer did not end within ${CLOSE_TIMEOUT_MS} ms; going on`);
    }
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();

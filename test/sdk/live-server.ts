// A real docwright HTTP server for client tests: the app from buildApp listening on 127.0.0.1
// with a random port, on a test database, and a real JobWorker whose runner is a small scripted
// function (the agent itself is tested elsewhere). What the runner does is chosen by the prompt:
//   "complete ..."  emits a tool_call event and completes with a pull request link
//   "no-change ..." completes without a pull request
//   "fail ..."      fails with pr_failed
//   anything else   stays active until cancelled, or until release(jobId) is called (before or
//                   after the worker reached it)
import type { AddressInfo } from 'node:net';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/http/context.ts';
import type { JobRunInput, JobRunner, JobRunResult } from '../../src/modules/jobs/runner-contract.ts';
import { JobWorker } from '../../src/modules/jobs/worker.ts';
import { createLogger } from '../../src/util/logger.ts';
import { createTestApp } from '../helpers/app.ts';

export const PR_LINK_BASE = 'https://github.com/example/docs/pull/';

export interface LiveServer {
  app: App;
  url: string;
  worker: JobWorker;
  /** Lets a held job (prompt without a keyword) complete with a pull request. */
  release(jobId: string): void;
  close(): Promise<void>;
}

export interface LiveServerOptions {
  /** Server default model; null: jobs of projects without a model fail with model_not_configured. */
  defaultModel?: string | null;
  jobRateLimitPerHour?: number;
}

let prNumber = 0;

function scriptedRunner(held: Map<string, () => void>, released: Set<string>): JobRunner {
  return async (input: JobRunInput): Promise<JobRunResult> => {
    const prompt = input.prompts.at(-1) ?? '';
    await input.event('tool_call', { tool: 'read_file', path: 'README.md' });
    const done = (prLink: string | null): JobRunResult => ({
      status: 'completed',
      prLink,
      branch: `docwright/test-${input.job.id}`,
      summary: `Did: ${prompt}`,
      stopReason: 'finish',
      usage: { inputTokens: 10, outputTokens: 5, steps: 1 },
    });
    if (prompt.startsWith('complete')) {
      await input.event('pull_request', { url: `${PR_LINK_BASE}${++prNumber}` });
      return done(`${PR_LINK_BASE}${prNumber}`);
    }
    if (prompt.startsWith('no-change')) return done(null);
    if (prompt.startsWith('fail')) {
      return { status: 'failed', code: 'pr_failed', message: 'The code host refused the pull request.' };
    }
    // Held: until released (completes) or aborted (cancel, shutdown).
    await new Promise<void>((resolve) => {
      held.set(input.job.id, resolve);
      // Released before the worker got here: a test may release as soon as it created the job.
      if (input.signal.aborted || released.delete(input.job.id)) resolve();
      input.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    held.delete(input.job.id);
    if (input.signal.aborted) return done(null);
    return done(`${PR_LINK_BASE}${++prNumber}`);
  };
}

export async function startLiveServer(db: Database, options: LiveServerOptions = {}): Promise<LiveServer> {
  const held = new Map<string, () => void>();
  const released = new Set<string>();
  const worker = new JobWorker({
    db,
    runner: scriptedRunner(held, released),
    logger: createLogger('silent'),
    concurrency: 4,
    leaseMs: 5000,
    maxAttempts: 3,
    pollIntervalMs: 200,
  });
  await worker.start();
  const app = await createTestApp(db, {
    config: {
      jobRateLimitPerHour: options.jobRateLimitPerHour ?? 1000,
      defaultModel: options.defaultModel === undefined ? null : options.defaultModel,
      publicUrl: 'http://127.0.0.1:3000',
    },
    onJobQueued: () => worker.nudge(),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    worker,
    release(jobId) {
      const resolve = held.get(jobId);
      if (resolve) resolve();
      else released.add(jobId);
    },
    async close() {
      await worker.stop(0);
      await app.close();
    },
  };
}

/** Polls probe until it returns something truthy (for setting up state, never for asserting speed). */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

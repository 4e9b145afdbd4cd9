// The job worker as the server runs it: the agent runner (workspace, model, code host) behind
// the generic worker from src/modules/jobs. Used inside `docwright serve` and by `docwright worker`.
import { createAgentRunner } from '../agent/run-job.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { jobWorkerObserver, trackWorker } from '../metrics/job-metrics.ts';
import type { DocwrightMetrics } from '../metrics/registry.ts';
import { JobWorker, saveJobDiff } from '../modules/jobs/index.ts';
import { loadPriceTable } from '../modules/usage/index.ts';
import type { Logger } from '../util/logger.ts';
import type { ServeExtension } from './serve-extension.ts';

/** How long a stopping worker lets running jobs finish before it hands them back. */
export const WORKER_STOP_GRACE_MS = 10_000;

export function createJobWorker(
  db: Database,
  config: Config,
  logger: Logger,
  metrics?: DocwrightMetrics,
): JobWorker {
  const log = logger.child({ component: 'worker' });
  const worker = new JobWorker({
    db,
    logger: log,
    // The worktree is removed after each run: the diff endpoint reads the copy kept here.
    runner: createAgentRunner({
      db,
      config,
      logger: log,
      saveDiff: (jobId, diff) => saveJobDiff(db, jobId, diff),
    }),
    concurrency: config.worker.concurrency,
    leaseMs: config.worker.leaseMs,
    maxAttempts: config.worker.maxAttempts,
    // A malformed price file stops the worker's start with a message naming the file.
    prices: loadPriceTable(config.modelPricesFile),
    ...(metrics ? { observer: jobWorkerObserver(metrics) } : {}),
  });
  if (metrics) trackWorker(metrics, worker);
  return worker;
}

/** Runs a worker inside `docwright serve` unless DOCWRIGHT_WORKER=false. */
export const jobWorkerExtension: ServeExtension = {
  name: 'job worker',
  async start({ db, config, logger, metrics }) {
    if (!config.worker.inServe) {
      logger.info('no job worker in this process (DOCWRIGHT_WORKER=false): run docwright worker');
      return { close: async () => {} };
    }
    const worker = createJobWorker(db, config, logger, metrics);
    await worker.start();
    return {
      onJobQueued: () => worker.nudge(),
      close: () => worker.stop(WORKER_STOP_GRACE_MS),
    };
  },
};

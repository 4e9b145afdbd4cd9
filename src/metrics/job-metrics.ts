// What a job worker reports to the metrics: each outcome it wrote, with the run's usage, and how
// many jobs it runs now (read at scrape time).
import type { JobWorkerObserver } from '../modules/jobs/index.ts';
import type { DocwrightMetrics } from './registry.ts';

export function jobWorkerObserver(metrics: DocwrightMetrics): JobWorkerObserver {
  return {
    finished({ status, code, usage }) {
      metrics.jobsFinished.inc({ status, code: code ?? '' });
      if (usage === null) return;
      metrics.agentSteps.inc(usage.steps);
      metrics.agentTokens.inc({ kind: 'input' }, usage.inputTokens);
      metrics.agentTokens.inc({ kind: 'output' }, usage.outputTokens);
    },
  };
}

/** Counts a worker's running jobs in docwright_worker_running_jobs. */
export function trackWorker(metrics: DocwrightMetrics, worker: { activeJobIds: string[] }): void {
  metrics.addWorker(() => worker.activeJobIds.length);
}

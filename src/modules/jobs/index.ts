// The jobs module's public surface: the job service, the worker and the runner it calls, job
// events and diffs. Other code imports this file, never the files beside it; the HTTP routes are
// registered by src/http/app.ts.

export { getJobChecks, type JobChecksView } from './checks/service.ts';
export { getJobCi, type JobCiView, requestCiPoll } from './ci/service.ts';
export {
  type CiReading,
  CiWatcher,
  type CiWatcherOptions,
  type CiWatchTarget,
  type ReadCiStatus,
} from './ci/watcher.ts';
export { type JobCodeSource, readJobCodeSource } from './code-source.ts';
export { getJobDiff, saveJobDiff } from './diff/service.ts';
export { type JobEventHub, jobEventHub } from './events/event-hub.ts';
export { jobEventsAreOver, listJobEvents } from './events/service.ts';
export type { JobRow } from './queries.ts';
export type { JobRunInput, JobRunner, JobRunResult, JobUsage } from './runner-contract.ts';
export {
  archiveJob,
  cancelJob,
  createJob,
  followUpJob,
  getJob,
  type JobServiceConfig,
  listJobPrompts,
  listJobs,
  toJobView,
} from './service.ts';
export { JobWorker, type JobWorkerObserver } from './worker.ts';

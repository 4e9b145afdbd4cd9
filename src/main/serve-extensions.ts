// Parts that run inside `docwright serve` beside the HTTP API, started after the database is
// open and stopped (in reverse order) at shutdown, before the database closes.
//
// This is where the job worker joins the server: add an entry to SERVE_EXTENSIONS that starts it
// and returns its stop function (and onJobQueued, so a job created through this server starts at
// once instead of at the next poll).
import type { ServeExtension } from './serve-extension.ts';

// Loaded lazily: the agent's dependencies (AI SDK, code-host clients) would slow every other command.
export const SERVE_EXTENSIONS: ServeExtension[] = [
  {
    name: 'job worker',
    async start(context) {
      const { jobWorkerExtension } = await import('./job-worker.ts');
      return jobWorkerExtension.start(context);
    },
  },
  {
    // Every serve process sends webhooks (cheap, and safe with several: deliveries are claimed).
    name: 'webhook dispatcher',
    async start({ db, config, logger }) {
      const { createWebhookDispatcher } = await import('../modules/webhooks/index.ts');
      const dispatcher = createWebhookDispatcher(db, config, logger);
      await dispatcher.start();
      return { close: () => dispatcher.stop() };
    },
  },
  {
    // Watches the checks of jobs' pull requests (docs/ci-follow-up.md); safe with several.
    name: 'CI watcher',
    async start({ db, config, logger }) {
      const { createCiWatcher } = await import('./ci-watcher.ts');
      const watcher = createCiWatcher(db, config, logger);
      await watcher.start();
      return { close: () => watcher.stop() };
    },
  },
  {
    // Turns automation runs into jobs and fires schedules; safe with several (runs are claimed).
    name: 'automation worker',
    async start({ db, config, logger }) {
      const { createAutomationWorker } = await import('./automation-worker.ts');
      const worker = createAutomationWorker(db, config, logger);
      await worker.start();
      return { close: () => worker.stop() };
    },
  },
];

// `docwright worker`: runs agent jobs, and the automation worker that turns automation runs into
// jobs, without serving HTTP, so jobs can run on other machines than the API. Any number of
// workers may share one PostgreSQL database.
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import { addDatabaseGauges } from '../../metrics/database-gauges.ts';
import { startMetricsServer } from '../../metrics/metrics-server.ts';
import { createMetrics } from '../../metrics/registry.ts';
import { createLogger } from '../../util/logger.ts';
import { openWhenFree } from '../open-when-free.ts';
import { surviveDatabaseOutages } from '../outage-guard.ts';
import { closeOnSignals } from '../shutdown.ts';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      "run agent jobs, automation runs and their pull requests' CI watch (no HTTP API); several workers may share one PostgreSQL database",
    )
    .addHelpText(
      'after',
      '\nConfigured by environment variables (see "docwright --help"): DOCWRIGHT_WORKER_CONCURRENCY,\n' +
        'DOCWRIGHT_JOB_LEASE_SECONDS, DOCWRIGHT_JOB_MAX_ATTEMPTS, the model and code-host variables;\n' +
        'DOCWRIGHT_METRICS_PORT to serve GET /metrics (Prometheus) on HOST:DOCWRIGHT_METRICS_PORT.\n' +
        'On the embedded database, docwright serve already runs a worker; this command is for PostgreSQL\n' +
        '(set DOCWRIGHT_WORKER=false on the API processes to keep jobs off them).\n' +
        'It also runs the automation worker (automation runs into jobs, schedules), as docwright serve does.\n' +
        'Stops gracefully on SIGTERM or SIGINT: running jobs get 10 s to finish, then go back to the queue.\n\n' +
        'Example:\n  DATABASE_URL=postgres://... DOCWRIGHT_SECRET_KEY=... docwright worker',
    )
    .action(async () => {
      const config = withSecretKey(loadConfig());
      const logger = createLogger(config.logLevel);
      surviveDatabaseOutages(logger);
      const opened = await openWhenFree(config, 'worker');
      const { createJobWorker, WORKER_STOP_GRACE_MS } = await import('../job-worker.ts');
      const metrics = createMetrics({ processMetrics: true });
      const worker = createJobWorker(opened.db, config, logger, metrics);
      const { createAutomationWorker } = await import('../automation-worker.ts');
      const automations = createAutomationWorker(opened.db, config, logger, () => worker.nudge());
      const { createCiWatcher } = await import('../ci-watcher.ts');
      const ciWatcher = createCiWatcher(opened.db, config, logger, () => worker.nudge());
      let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
      // The worker runs until it is stopped. Its poll timer does not hold the process open, and
      // while the database is away no connection does either: without this, an outage would
      // end the process quietly with exit code 0.
      const keepAlive = setInterval(() => {}, 1 << 30);
      closeOnSignals(async () => {
        clearInterval(keepAlive);
        try {
          await automations.stop();
          await ciWatcher.stop();
          await worker.stop(WORKER_STOP_GRACE_MS);
          await metricsServer?.close();
        } finally {
          await opened.close();
        }
      }, logger);
      await worker.start();
      await automations.start();
      await ciWatcher.start();
      if (config.metrics.workerPort !== null) {
        addDatabaseGauges(metrics, opened.db);
        metricsServer = await startMetricsServer({
          metrics,
          host: config.host,
          port: config.metrics.workerPort,
          token: config.metrics.token,
        });
      }
      logger.info(
        {
          worker: worker.id,
          concurrency: config.worker.concurrency,
          automations: true,
          database: opened.lock ? 'pglite' : 'postgres',
          ...(metricsServer ? { metrics: `${metricsServer.url}/metrics` } : {}),
        },
        'worker started',
      );
    });
}

// The metrics of one docwright process, in one prom-client registry of its own (never the global
// default), so that tests can build several apps in one process without their numbers mixing.
// Everything here is process-local: counters start at zero when a process starts, and Prometheus
// adds up the processes. Labels hold only small fixed sets (route patterns, status classes, drop
// reasons, failure codes): never raw URLs, project ids or keys.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface DocwrightMetrics {
  readonly registry: Registry;
  /** HTTP answers by method, route pattern and status class (2xx, 4xx...). */
  readonly httpRequestSeconds: Histogram<'method' | 'route' | 'status_class'>;
  /** Job runs whose outcome this process wrote, by status and failure code ('' when completed). */
  readonly jobsFinished: Counter<'status' | 'code'>;
  /** The agent's model steps, summed from each finished run's usage. */
  readonly agentSteps: Counter;
  /** The model's tokens, summed from each finished run's usage, by kind (input, output). */
  readonly agentTokens: Counter<'kind'>;
  /** Ingested request records by source (api, script) and outcome (accepted, dropped, rejected). */
  readonly ingestRecords: Counter<'source' | 'outcome'>;
  /** Records that were well formed but are not page views, by source and drop reason. */
  readonly ingestDropped: Counter<'source' | 'reason'>;
  /** Group commits: how long each transaction took, by writer and result (committed, failed). */
  readonly ingestFlushSeconds: Histogram<'writer' | 'result'>;
  /** Page views per group commit (the batch size), by writer. */
  readonly ingestFlushViews: Histogram<'writer'>;
  /** Ingest requests per group commit, by writer. */
  readonly ingestFlushRequests: Histogram<'writer'>;
  /** Page views refused at once (503 ingest_overloaded) because too many were pending, by writer. */
  readonly ingestRefusedViews: Counter<'writer'>;
  /** Adds a worker of this process to the running-jobs gauge (its count is read at scrape time). */
  addWorker(runningJobs: () => number): void;
}

export interface CreateMetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event-loop lag); the entry points do. */
  processMetrics?: boolean;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SIZE_BUCKETS = [1, 10, 100, 1_000, 5_000, 20_000, 100_000];

export function createMetrics(options: CreateMetricsOptions = {}): DocwrightMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const workers: (() => number)[] = [];

  new Gauge({
    name: 'docwright_worker_running_jobs',
    help: 'Jobs the job workers of this process are running now.',
    registers,
    collect() {
      this.set(workers.reduce((sum, running) => sum + running(), 0));
    },
  });

  return {
    registry,
    httpRequestSeconds: new Histogram({
      name: 'docwright_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status class.',
      labelNames: ['method', 'route', 'status_class'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    jobsFinished: new Counter({
      name: 'docwright_jobs_finished_total',
      help: "Job runs whose outcome this process's workers wrote, by status and failure code.",
      labelNames: ['status', 'code'] as const,
      registers,
    }),
    agentSteps: new Counter({
      name: 'docwright_agent_steps_total',
      help: "The agent's model steps, from the usage of each run this process finished.",
      registers,
    }),
    agentTokens: new Counter({
      name: 'docwright_agent_tokens_total',
      help: "The model's tokens (input, output), from the usage of each run this process finished.",
      labelNames: ['kind'] as const,
      registers,
    }),
    ingestRecords: new Counter({
      name: 'docwright_ingest_records_total',
      help: 'Request records received by source (api: the ingest endpoint; script: the browser script) and outcome.',
      labelNames: ['source', 'outcome'] as const,
      registers,
    }),
    ingestDropped: new Counter({
      name: 'docwright_ingest_dropped_total',
      help: 'Well-formed records that are not page views, by source and drop reason.',
      labelNames: ['source', 'reason'] as const,
      registers,
    }),
    ingestFlushSeconds: new Histogram({
      name: 'docwright_ingest_flush_duration_seconds',
      help: 'Time to commit one group of ingested page views, by writer and result.',
      labelNames: ['writer', 'result'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    ingestFlushViews: new Histogram({
      name: 'docwright_ingest_flush_views',
      help: 'Page views committed per group commit, by writer.',
      labelNames: ['writer'] as const,
      buckets: SIZE_BUCKETS,
      registers,
    }),
    ingestFlushRequests: new Histogram({
      name: 'docwright_ingest_flush_requests',
      help: 'Requests answered per group commit, by writer.',
      labelNames: ['writer'] as const,
      buckets: SIZE_BUCKETS,
      registers,
    }),
    ingestRefusedViews: new Counter({
      name: 'docwright_ingest_refused_views_total',
      help: 'Page views refused at once because too many were waiting to be committed (503 ingest_overloaded).',
      labelNames: ['writer'] as const,
      registers,
    }),
    addWorker(runningJobs) {
      workers.push(runningJobs);
    },
  };
}

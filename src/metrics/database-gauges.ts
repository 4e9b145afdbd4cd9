// Gauges read from the database when Prometheus scrapes: jobs by status, the job queue, and the
// page views waiting to be merged (a merger that falls behind shows there first). They
// describe the shared database, not this process, so every process that exports them reports the
// same numbers: aggregate them with max(), not sum(). Reads are cached, so several scrapers (or a
// scrape storm) cost one query per cache lifetime:
// - the queue (active jobs, waiting or running, and the oldest wait) reads only active jobs through
//   the partial index jobs_active_queue: cheap at any size, kept 5 s;
// - the staged page views (page_views_staged, one to ten seconds of ingest when merges keep up), 5 s;
// - the finished statuses (completed, failed, archived) are a count over every job, which grows
//   with the table (about 0.2 s at 500,000 jobs here, bench/schema-scale-check.ts): kept 60 s.
import { Gauge } from 'prom-client';
import type { Database } from '../db/database.ts';
import { countJobsByStatus, selectJobQueue, selectStagedViews } from './queries.ts';
import type { DocwrightMetrics } from './registry.ts';

export interface DatabaseGaugeOptions {
  /** How long a read of the queue, and of the staged page views, is reused (default 5 s). */
  queueCacheMs?: number;
  /** How long a count of finished jobs by status is reused (default 60 s). */
  statusCacheMs?: number;
  /** A read that takes longer counts as the database being down (default 2 s, as /readyz). */
  timeoutMs?: number;
  now?: () => number;
}

const FINISHED_STATUSES = ['completed', 'failed', 'archived'];
const attached = new WeakSet<object>();

/** A read shared by every caller for ttlMs; null when it failed or took longer than timeoutMs. */
function cachedRead<T>(
  read: () => Promise<T>,
  options: { ttlMs: number; timeoutMs: number; now: () => number },
): () => Promise<T | null> {
  let cached: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    if (cached !== null && options.now() - cached.at < options.ttlMs) return cached.value;
    const value = withTimeout(read, options.timeoutMs);
    cached = { at: options.now(), value };
    return value;
  };
}

async function withTimeout<T>(read: () => Promise<T>, timeoutMs: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
      }),
    ]);
  } catch {
    // Unreachable database: the gauges are left out and docwright_database_up says why.
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export function addDatabaseGauges(
  metrics: DocwrightMetrics,
  db: Database,
  options: DatabaseGaugeOptions = {},
): void {
  // One set per registry: the API and a worker in the same process share them.
  if (attached.has(metrics.registry)) return;
  attached.add(metrics.registry);
  const timeoutMs = options.timeoutMs ?? 2000;
  const now = options.now ?? Date.now;
  const queue = cachedRead(() => selectJobQueue(db), { ttlMs: options.queueCacheMs ?? 5000, timeoutMs, now });
  const byStatus = cachedRead(() => countJobsByStatus(db), {
    ttlMs: options.statusCacheMs ?? 60_000,
    timeoutMs,
    now,
  });
  const staged = cachedRead(() => selectStagedViews(db), {
    ttlMs: options.queueCacheMs ?? 5000,
    timeoutMs,
    now,
  });
  const registers = [metrics.registry];

  new Gauge({
    name: 'docwright_database_up',
    help: 'Whether the last read of the job queue reached the database (1) or not (0).',
    registers,
    async collect() {
      this.set((await queue()) === null ? 0 : 1);
    },
  });
  new Gauge({
    name: 'docwright_jobs',
    help: 'Jobs in the database by status; active is refreshed every 5 s, the others every 60 s (the same in every process: use max, not sum).',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const [active, counts] = await Promise.all([queue(), byStatus()]);
      this.reset();
      if (active !== null) this.set({ status: 'active' }, active.waiting + active.running);
      if (counts === null) return;
      const byName = new Map(counts.map((row) => [row.status, row.jobs]));
      for (const status of FINISHED_STATUSES) this.set({ status }, byName.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'docwright_job_queue_depth',
    help: 'Active jobs by state: waiting (nobody holds them) or running (held under a live lease).',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const read = await queue();
      this.reset();
      if (read === null) return;
      this.set({ state: 'waiting' }, read.waiting);
      this.set({ state: 'running' }, read.running);
    },
  });
  new Gauge({
    name: 'docwright_job_queue_oldest_waiting_seconds',
    help: 'How long the longest-waiting active job has waited for a worker (0 when none waits).',
    registers,
    async collect() {
      const read = await queue();
      this.reset();
      if (read === null) return;
      this.set(Math.max(0, read.oldest_waiting_seconds ?? 0));
    },
  });
  new Gauge({
    name: 'docwright_ingest_staged_views',
    help: 'Page views acknowledged by ingestion and not yet merged into the reports (one to ten seconds of ingest when merges keep up).',
    registers,
    async collect() {
      const read = await staged();
      this.reset();
      if (read !== null) this.set(Number(read.views));
    },
  });
  new Gauge({
    name: 'docwright_ingest_staged_oldest_seconds',
    help: 'How long the oldest page views waiting to be merged have waited (0 when none waits).',
    registers,
    async collect() {
      const read = await staged();
      this.reset();
      if (read !== null) this.set(Math.max(0, read.oldest_seconds ?? 0));
    },
  });
}

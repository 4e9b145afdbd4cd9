// Gauges read from the database when Prometheus scrapes: jobs by status and the job queue. They
// describe the shared database, not this process, so every process that exports them reports the
// same numbers: aggregate them with max(), not sum(). One snapshot serves all of them and is kept
// for a few seconds, so several scrapers (or a scrape storm) cost one pair of queries.
import { Gauge } from 'prom-client';
import type { Database } from '../db/database.ts';
import { countJobsByStatus, type QueueRow, selectJobQueue } from './queries.ts';
import type { DocwrightMetrics } from './registry.ts';

export interface DatabaseGaugeOptions {
  /** How long a snapshot is reused (default 5 s). */
  cacheMs?: number;
  /** A snapshot that takes longer counts as the database being down (default 2 s, as /readyz). */
  timeoutMs?: number;
  now?: () => number;
}

interface Snapshot {
  byStatus: { status: string; jobs: number }[];
  queue: QueueRow;
}

const JOB_STATUSES = ['active', 'completed', 'failed', 'archived'];
const attached = new WeakSet<object>();

export function addDatabaseGauges(
  metrics: DocwrightMetrics,
  db: Database,
  options: DatabaseGaugeOptions = {},
): void {
  // One set per registry: the API and a worker in the same process share them.
  if (attached.has(metrics.registry)) return;
  attached.add(metrics.registry);
  const cacheMs = options.cacheMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 2000;
  const now = options.now ?? Date.now;
  let cached: { at: number; snapshot: Promise<Snapshot | null> } | null = null;

  const snapshot = (): Promise<Snapshot | null> => {
    if (cached !== null && now() - cached.at < cacheMs) return cached.snapshot;
    const taken = readSnapshot(db, timeoutMs);
    cached = { at: now(), snapshot: taken };
    return taken;
  };
  const registers = [metrics.registry];

  new Gauge({
    name: 'docwright_database_up',
    help: 'Whether the last read of the job gauges reached the database (1) or not (0).',
    registers,
    async collect() {
      this.set((await snapshot()) === null ? 0 : 1);
    },
  });
  new Gauge({
    name: 'docwright_jobs',
    help: 'Jobs in the database by status (the same in every process: use max, not sum).',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const taken = await snapshot();
      this.reset();
      if (taken === null) return;
      const counts = new Map(taken.byStatus.map((row) => [row.status, row.jobs]));
      for (const status of JOB_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'docwright_job_queue_depth',
    help: 'Active jobs by state: waiting (nobody holds them) or running (held under a live lease).',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const taken = await snapshot();
      this.reset();
      if (taken === null) return;
      this.set({ state: 'waiting' }, taken.queue.waiting);
      this.set({ state: 'running' }, taken.queue.running);
    },
  });
  new Gauge({
    name: 'docwright_job_queue_oldest_waiting_seconds',
    help: 'How long the longest-waiting active job has waited for a worker (0 when none waits).',
    registers,
    async collect() {
      const taken = await snapshot();
      this.reset();
      if (taken === null) return;
      this.set(Math.max(0, taken.queue.oldest_waiting_seconds ?? 0));
    },
  });
}

async function readSnapshot(db: Database, timeoutMs: number): Promise<Snapshot | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.all([countJobsByStatus(db), selectJobQueue(db)]).then(([byStatus, queue]) => ({
        byStatus,
        queue,
      })),
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

// What a part that runs inside `docwright serve` beside the HTTP API looks like (the list of them
// is serve-extensions.ts). Apart from the list so an extension, which the list loads lazily, can
// name the shape without importing the list.
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { DocwrightMetrics } from '../metrics/registry.ts';
import type { Logger } from '../util/logger.ts';

export interface ServeContext {
  db: Database;
  config: Config;
  logger: Logger;
  /** The process's metrics, shared with the API (the worker counts its jobs there). */
  metrics?: DocwrightMetrics;
}

export interface StartedServeExtension {
  /** Called by the job routes after a job is created or re-activated. */
  onJobQueued?: (jobId: string) => void;
  close(): Promise<void>;
}

export interface ServeExtension {
  name: string;
  start(context: ServeContext): Promise<StartedServeExtension>;
}

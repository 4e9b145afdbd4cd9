// The unit the rollup writers pass around: one hourly key with its views. It has a file of its own
// so the writers of each level (levels.ts, level-writes.ts, locked-writes.ts) can name it without
// importing rollups.ts, which imports them.
import type { TrafficClass } from './queries.ts';

/** One distinct hourly key and its views, checked. */
export interface KeyedCount {
  projectId: string;
  /** ISO 8601 UTC, on the hour. */
  hour: string;
  /** The same hour in epoch seconds. */
  hourSeconds: number;
  path: string;
  trafficClass: TrafficClass;
  agent: string;
  verification: string;
  views: number;
}

// The CI watcher as the server runs it: the watcher from src/modules/jobs over the code-host
// adapters (src/agent/ci). Started by `docwright serve` (every process: cheap, and safe with
// several, since watches are claimed) and by `docwright worker`.
import { createCiStatusReader } from '../agent/ci/read-ci-status.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { CiWatcher } from '../modules/jobs/index.ts';
import type { Logger } from '../util/logger.ts';

export function createCiWatcher(
  db: Database,
  config: Config,
  logger: Logger,
  onJobQueued?: (jobId: string) => void,
): CiWatcher {
  return new CiWatcher({
    db,
    logger: logger.child({ component: 'ci' }),
    jobs: { jobRateLimitPerHour: config.jobRateLimitPerHour, defaultModel: config.defaultModel },
    readStatus: createCiStatusReader({ db, config }),
    ...(onJobQueued ? { onJobQueued } : {}),
  });
}

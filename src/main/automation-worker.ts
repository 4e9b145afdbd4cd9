// The automation worker as the server runs it: the generic worker from src/modules/automations
// with the git reader of the review_comment trigger (the commented lines on a job's branch).
// Used inside `docwright serve` and by `docwright worker`.
import { createBranchLineReader } from '../agent/branch-lines.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { AutomationWorker } from '../modules/automations/index.ts';
import type { Logger } from '../util/logger.ts';

export function createAutomationWorker(
  db: Database,
  config: Config,
  logger: Logger,
  onJobQueued?: (jobId: string) => void,
): AutomationWorker {
  return new AutomationWorker({
    db,
    logger: logger.child({ component: 'automations' }),
    jobs: { jobRateLimitPerHour: config.jobRateLimitPerHour, defaultModel: config.defaultModel },
    readBranchLines: createBranchLineReader({ db, config }),
    ...(onJobQueued ? { onJobQueued } : {}),
  });
}

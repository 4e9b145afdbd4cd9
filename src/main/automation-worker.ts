// The automation worker as the server runs it: the generic worker from src/modules/automations
// with its git readers: the commented lines on a job's branch (review_comment) and the changed
// files and diff of a code change, read from the watched repository's own mirror (the job worker's
// code tools read the same commit from theirs). Used inside `docwright serve` and by
// `docwright worker`.
import { join } from 'node:path';
import { createBranchLineReader } from '../agent/branch-lines.ts';
import { CodeMirrors } from '../agent/code-source/code-mirror.ts';
import { createCodeChangeReader } from '../agent/code-source/read-code-change.ts';
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
    readCodeChange: createCodeChangeReader({
      db,
      config,
      mirrors: new CodeMirrors({ cacheDir: join(config.dataDir, 'code-repos') }),
    }),
    ...(onJobQueued ? { onJobQueued } : {}),
  });
}

// A long-running process (serve, worker) must outlive any database outage. The database layer
// handles connection errors where they arise (src/db/postgres.ts) and every background loop
// catches its failures; this is the last line behind them: an error that says "the database
// cannot be reached" and escaped anyway (an 'error' event nobody listened to, a rejection nobody
// awaited) is logged instead of ending the process, since the pool replaces broken connections
// and the next query reconnects. Any other escaped error still ends the process, as Node would.
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../util/logger.ts';

export function surviveDatabaseOutages(logger: Logger): void {
  process.on('uncaughtException', (error, origin) => {
    if (isDatabaseUnavailable(error)) {
      logger.error({ err: error, origin }, 'database unavailable (an error no caller handled); carrying on');
      return;
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnavailable(reason)) {
      logger.error({ err: reason }, 'database unavailable (a rejection no caller handled); carrying on');
      return;
    }
    throw reason; // as Node does by default: it becomes an uncaught exception
  });
}

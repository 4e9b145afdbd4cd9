// SIGTERM and SIGINT stop the server gracefully; a second signal, from someone who will not wait,
// exits at once.
import { constants } from 'node:os';
import type { Logger } from '../util/logger.ts';

export function closeOnSignals(close: () => Promise<void>, logger: Logger): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

// SIGTERM and SIGINT stop the server gracefully; a second signal, from someone who will not wait,
// exits at once.
//
// Under `npm start` one stop can arrive twice: npm passes every SIGINT and SIGTERM on to this
// process (its direct child: the start script execs), and a terminal's Ctrl-C or a supervisor that
// signals the whole process group reaches this process directly as well. So under npm a repeat of
// the same signal within NPM_COPY_WINDOW_MS counts as that copy, not as a second signal.
import { constants } from 'node:os';
import type { Logger } from '../util/logger.ts';

// Long enough for npm to pass a copy on from a loaded machine; a person pressing Ctrl-C again
// because shutdown takes too long does so later than this.
const NPM_COPY_WINDOW_MS = 2000;

export function closeOnSignals(close: () => Promise<void>, logger: Logger): void {
  // Only `npm start` itself: a process started by something that runs under `npm test` (the
  // suite's servers) inherits npm's variables too, and must keep the second-signal exit.
  const underNpm = process.env.npm_lifecycle_event === 'start';
  let first: { signal: NodeJS.Signals; at: number } | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== null) {
      if (underNpm && signal === first.signal && Date.now() - first.at < NPM_COPY_WINDOW_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    first = { signal, at: Date.now() };
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

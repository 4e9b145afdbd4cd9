// Turns a failed command into a message on stderr and an exit status: 2 for usage mistakes, 1 for
// everything else. Expected failures (bad input, a held data directory, bad configuration, an
// unreachable database) print their message only; a stack trace means a bug.
import { CommanderError } from 'commander';
import { ConfigError } from '../../config/config.ts';
import { DataDirLockedError } from '../../db/data-dir-lock.ts';
import { AppError } from '../../errors/app-error.ts';
import { scrubSecrets } from '../../util/logger.ts';
import { ControlConnectionError } from '../control/control-client.ts';
import { ListenError } from '../listen-error.ts';
import { UsageError } from './usage-error.ts';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// Errors of the network or of PostgreSQL itself when DATABASE_URL cannot be used.
const DATABASE_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '28P01', // invalid password
  '28000', // invalid authorization
  '3D000', // database does not exist
  '57P03', // cannot connect now
]);

export function reportError(error: unknown, write: (text: string) => void): number {
  const say = (text: string) => write(`${scrubSecrets(text)}\n`);
  if (error instanceof CommanderError) {
    // Commander has already printed its message (or the help).
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (error instanceof UsageError) {
    say(`error: ${error.message}`);
    return EXIT_USAGE;
  }
  if (error instanceof AppError) {
    say(`error: ${error.message}`);
    for (const detail of error.details ?? []) {
      if (!error.message.includes(detail.message))
        say(`  - ${detail.name ? `${detail.name}: ` : ''}${detail.message}`);
    }
    return EXIT_FAILURE;
  }
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof ControlConnectionError ||
    error instanceof ListenError
  ) {
    say(`error: ${error.message}`);
    return EXIT_FAILURE;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DATABASE_CONNECTION_CODES.has(code)) {
    say(`error: cannot use the database set in DATABASE_URL: ${(error as Error).message}`);
    return EXIT_FAILURE;
  }
  say(
    `docwright: unexpected error (a bug; please report it with what you ran):\n${(error as Error)?.stack ?? String(error)}`,
  );
  return EXIT_FAILURE;
}

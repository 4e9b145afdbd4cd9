// Opens the database like openDatabase, but when the data directory is held by a short command
// (another `keys create`, a `migrate`), waits for it to finish instead of failing: scripts that
// run such commands beside `docwright serve` should not fail by bad timing. A long-lived holder
// (a running server) still makes it fail at once, with the lock's message.
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/config.ts';
import { DataDirLockedError, type LockHolder } from '../db/data-dir-lock.ts';
import { type OpenedDatabase, openDatabase } from '../db/open.ts';
import { ADMIN_COMMANDS } from './commands/registry.ts';

export const WAIT_FOR_SHORT_HOLDER_MS = 15_000;
const POLL_MS = 150;

export function isShortLivedHolder(holder: LockHolder): boolean {
  return (
    holder.hostname === hostname() && (holder.command === 'migrate' || ADMIN_COMMANDS.has(holder.command))
  );
}

export async function openWhenFree(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  command: string,
): Promise<OpenedDatabase> {
  const deadline = Date.now() + WAIT_FOR_SHORT_HOLDER_MS;
  for (;;) {
    try {
      return await openDatabase(config, command);
    } catch (error) {
      const waitable = error instanceof DataDirLockedError && isShortLivedHolder(error.holder);
      if (!waitable || Date.now() >= deadline) throw error;
    }
    await sleep(POLL_MS);
  }
}

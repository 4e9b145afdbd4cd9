// Runs an admin command wherever the database can safely be reached:
// - with DATABASE_URL, directly on PostgreSQL (a server shares it without harm);
// - on the embedded database held by a running `docwright serve`, through its control socket;
// - on a free data directory, in this process, under the data directory's lock.
// A holder that cannot take the command (another machine, a long-lived command without a socket)
// makes it stop at once with the lock's message; a server still starting, or a short command
// such as another `keys create`, is waited for, briefly: the CLI never hangs.
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config/config.ts';
import { DataDirLockedError, type LockHolder, readLockHolder } from '../../db/data-dir-lock.ts';
import { openDatabase } from '../../db/open.ts';
import type { AdminCommand, AdminContext } from '../commands/admin-command.ts';
import { isShortLivedHolder, WAIT_FOR_SHORT_HOLDER_MS } from '../open-when-free.ts';
import { sendToServer } from './control-client.ts';

const POLL_MS = 150;

/** Holders worth waiting for: a server that will soon listen on its socket, or a short command. */
function isWorthWaitingFor(holder: LockHolder): boolean {
  return (holder.command === 'serve' && holder.hostname === hostname()) || isShortLivedHolder(holder);
}

export async function runAdminCommand<Result>(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'secretKey' | 'repositories'>,
  command: AdminCommand<never, Result> | AdminCommand,
  input: unknown,
): Promise<Result> {
  const runCommand = command.run as (
    db: Parameters<AdminCommand['run']>[0],
    input: unknown,
    context: AdminContext,
  ) => Promise<Result>;
  const run = (db: Parameters<AdminCommand['run']>[0], input: unknown) =>
    runCommand(db, input, { secretKey: config.secretKey, repositories: config.repositories });
  if (config.databaseUrl !== null) return runLocally(config, command.name, (db) => run(db, input));

  const deadline = Date.now() + WAIT_FOR_SHORT_HOLDER_MS;
  for (;;) {
    const holder = readLockHolder(config.dataDir);
    if (holder === null) {
      try {
        return await runLocally(config, command.name, (db) => run(db, input));
      } catch (error) {
        // Someone took the directory between our look and our lock: look again.
        if (!(error instanceof DataDirLockedError)) throw error;
      }
    } else if (!isWorthWaitingFor(holder)) {
      throw new DataDirLockedError(config.dataDir, holder);
    } else if (holder.controlSocket) {
      const outcome = await sendToServer(holder.controlSocket, command.name, input);
      if (outcome.delivered) return outcome.result as Result;
      // Refused: the server is stopping or stopped, so the command did not run. Look again.
    }
    if (Date.now() >= deadline) {
      const current = readLockHolder(config.dataDir);
      if (current) throw new DataDirLockedError(config.dataDir, current);
      return runLocally(config, command.name, (db) => run(db, input));
    }
    await sleep(POLL_MS);
  }
}

async function runLocally<Result>(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  name: string,
  fn: (db: Parameters<AdminCommand['run']>[0]) => Promise<Result>,
): Promise<Result> {
  const opened = await openDatabase(config, name);
  try {
    return await fn(opened.db);
  } finally {
    await opened.close();
  }
}

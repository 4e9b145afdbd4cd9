// Serialises the operations that change a mirror (clone, fetch, adding and removing worktrees,
// deleting job branches). Two jobs on one repository may run in one process (several worker
// slots) or in several processes sharing a data directory, so there are two layers: a promise
// chain per lock path inside the process, and an exclusive lockfile across processes. The lockfile
// names its holder (host and pid); one left by a dead process on this host is taken over, one from
// another host is trusted until it is old enough that no fetch could still be running. (Two
// processes taking over the same abandoned file at the same instant could both proceed; that
// needs a crash first and is accepted.)
import { open, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

const chains = new Map<string, Promise<unknown>>();
const EMPTY_LOCK_STALE_MS = 10_000;

export interface MirrorLockOptions {
  /** Give up waiting after this long. */
  timeoutMs?: number;
  /** A lockfile older than this is considered abandoned whoever wrote it. */
  staleMs?: number;
  signal?: AbortSignal;
}

export class MirrorLockTimeout extends Error {
  constructor(lockPath: string, holder: string) {
    super(`Timed out waiting for the repository cache lock ${lockPath} (held by ${holder || 'unknown'})`);
    this.name = 'MirrorLockTimeout';
  }
}

/** Runs `fn` while holding the lock at `lockPath`, in this process and across processes. */
export function withMirrorLock<T>(lockPath: string, fn: () => Promise<T>, options: MirrorLockOptions = {}) {
  const previous = chains.get(lockPath) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => withLockFile(lockPath, fn, options));
  const tail = run.catch(() => undefined);
  chains.set(lockPath, tail);
  // Forget the chain once it is idle, so the map does not grow with every repository ever used.
  void tail.then(() => {
    if (chains.get(lockPath) === tail) chains.delete(lockPath);
  });
  return run;
}

async function withLockFile<T>(lockPath: string, fn: () => Promise<T>, options: MirrorLockOptions) {
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const staleMs = options.staleMs ?? 30 * 60_000;
  const deadline = Date.now() + timeoutMs;
  const me = `${hostname()} ${process.pid}`;
  let delay = 10;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const handle = await open(lockPath, 'wx');
      try {
        await handle.writeFile(`${me}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockPath);
    if (await isAbandoned(lockPath, holder, staleMs)) {
      await rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new MirrorLockTimeout(lockPath, holder);
    await sleep(delay, undefined, { signal: options.signal });
    delay = Math.min(delay * 2, 250);
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function readHolder(lockPath: string): Promise<string> {
  try {
    return (await readFile(lockPath, 'utf8')).trim();
  } catch {
    return '';
  }
}

async function isAbandoned(lockPath: string, holder: string, staleMs: number): Promise<boolean> {
  const [host, pidText] = holder.split(' ');
  if (host === hostname() && pidText) {
    const pid = Number(pidText);
    // Our own pid can only be a leftover of an earlier process that had it: inside this process
    // the promise chain lets one holder at a time reach the file.
    if (pid === process.pid || (Number.isInteger(pid) && pid > 0 && !isAlive(pid))) return true;
    // A live holder on this host keeps its lock however long its clone takes.
    if (Number.isInteger(pid) && pid > 0) return false;
  }
  // Another host's holder: only age can tell. An empty file is a holder that died between
  // creating it and writing its name: a few seconds are enough to know.
  try {
    const age = Date.now() - (await stat(lockPath)).mtimeMs;
    return age > (holder === '' ? EMPTY_LOCK_STALE_MS : staleMs);
  } catch {
    return false; // gone already: the next attempt takes it
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

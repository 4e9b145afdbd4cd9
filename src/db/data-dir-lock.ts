// PGlite has no lock of its own: two processes opening one data directory silently lose writes.
// So the process that opens it first writes a lockfile naming itself, and every other process
// reads that file and stops with a message saying who holds the directory.
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  hostname: string;
  command: string;
  startedAt: string;
  /** Set by a server once it listens, so CLI commands can name (and reach) it. */
  url?: string;
  /** Unix socket on which the holder serves the CLI's admin commands. */
  controlSocket?: string;
}

export class DataDirLockedError extends Error {
  readonly holder: LockHolder;
  constructor(dataDir: string, holder: LockHolder) {
    const where = holder.url ? ` at ${holder.url}` : '';
    super(
      `The data directory ${dataDir} is in use by "docwright ${holder.command}" (pid ${holder.pid} on ${holder.hostname}${where}, since ${holder.startedAt}). ` +
        'The embedded database belongs to one process: stop that process first, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
    this.holder = holder;
  }
}

export interface DataDirLock {
  readonly file: string;
  update(fields: Partial<Pick<LockHolder, 'url' | 'controlSocket'>>): void;
  release(): void;
}

export function lockFilePath(dataDir: string): string {
  return join(dataDir, 'docwright.lock');
}

/** Reads the current holder, or null when the directory is free (no file, or a dead holder). */
export function readLockHolder(dataDir: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as LockHolder;
  } catch {
    return null;
  }
  return isAlive(holder) ? holder : null;
}

export function acquireDataDirLock(dataDir: string, command: string): DataDirLock {
  const file = lockFilePath(dataDir);
  const me: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    command,
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createComplete(file, me)) return handle(file, me);
    const holder = readRawHolder(file);
    if (holder && isAlive(holder)) throw new DataDirLockedError(dataDir, holder);
    // The holder died without cleaning up (kill -9, power loss): take the directory over.
    // Removing and re-creating exclusively means that of two processes racing here, one wins.
    try {
      unlinkSync(file);
    } catch {}
  }
  const holder = readRawHolder(file);
  if (holder) throw new DataDirLockedError(dataDir, holder);
  throw new Error(`Could not lock the data directory ${dataDir}`);
}

function handle(file: string, me: LockHolder): DataDirLock {
  let current = me;
  let released = false;
  return {
    file,
    update(fields) {
      current = { ...current, ...fields };
      // Write aside, then rename: a reader sees the old or the new holder, never a half-written one.
      const aside = `${file}.${process.pid}.tmp`;
      writeFileSync(aside, JSON.stringify(current), { mode: 0o600 });
      renameSync(aside, file);
    },
    release() {
      if (released) return;
      released = true;
      const holder = readRawHolder(file);
      if (holder && holder.pid === me.pid && holder.hostname === me.hostname) {
        try {
          unlinkSync(file);
        } catch {}
      }
    },
  };
}

/**
 * Creates the lockfile with its whole content at once, or answers false when it exists. A plain
 * exclusive create would leave an empty file for a moment, which a racing process would read as
 * "no holder" and remove; link() makes the complete file appear atomically, or fails with EEXIST.
 */
function createComplete(file: string, me: LockHolder): boolean {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, JSON.stringify(me), { mode: 0o600 });
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: fall back to an exclusive create.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return createExclusive(file, me);
    throw error;
  } finally {
    try {
      unlinkSync(aside);
    } catch {}
  }
}

function createExclusive(file: string, me: LockHolder): boolean {
  try {
    writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readRawHolder(file: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

function isAlive(holder: LockHolder): boolean {
  // A lock from another machine (a shared network disk) cannot be checked: treat it as held.
  if (holder.hostname !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

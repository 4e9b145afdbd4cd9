// PGlite has no lock of its own: two processes opening one data directory silently lose writes.
// So the process that opens it first writes a lockfile naming itself, and every other process
// reads that file and stops with a message saying who holds the directory.
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
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
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    if (createComplete(file, me)) {
      removeTakeoverGuards(dataDir);
      return handle(file, me);
    }
    const found = readLockFile(file);
    if (found === null) continue; // released between our attempt and our read: try again
    if (isAlive(found.holder)) throw new DataDirLockedError(dataDir, found.holder);
    // The holder died without cleaning up (kill -9, power loss): take the directory over.
    if (!removeStaleLock(dataDir, file, found)) sleep(TAKEOVER_WAIT_MS);
  }
  const holder = readRawHolder(file);
  if (holder) throw new DataDirLockedError(dataDir, holder);
  throw new Error(`Could not lock the data directory ${dataDir}`);
}

// A takeover in progress takes microseconds; these bound the wait for one whose taker is slow.
const TAKEOVER_ATTEMPTS = 200;
const TAKEOVER_WAIT_MS = 10;
const GUARD_PREFIX = 'docwright.lock.takeover-';

interface LockFile {
  holder: LockHolder;
  /** Identifies this very file: inode and content, so a new lock is never mistaken for it. */
  identity: string;
}

/**
 * Removes the stale lockfile `found`, unless someone else is already doing so or has done so.
 * Deleting "the lockfile" is not safe on its own: of two processes that both saw the stale
 * lock, the slower one would delete the lock the faster one had just created, and both would
 * hold the directory. So a process first takes a guard named after this stale file's identity
 * (created atomically: of all contenders exactly one gets it), re-reads the lockfile, and deletes
 * it only when it is still that same stale file. Nothing else can replace a lockfile that exists
 * (creation fails while it exists, and its dead holder will not rewrite it), so between the
 * check and the unlink it stays the same file. A guard whose taker died mid-takeover is passed
 * by taking the next guard in line (…-1, …-2, …).
 */
function removeStaleLock(dataDir: string, file: string, found: LockFile): boolean {
  for (let generation = 1; ; generation++) {
    const guard = join(dataDir, `${GUARD_PREFIX}${found.identity}-${generation}`);
    const taker: LockHolder = {
      pid: process.pid,
      hostname: hostname(),
      command: 'takeover',
      startedAt: new Date().toISOString(),
    };
    if (createComplete(guard, taker)) {
      const current = readLockFile(file);
      if (current !== null && current.identity === found.identity) {
        try {
          unlinkSync(file);
        } catch {}
      }
      // The stale file is gone for good (its identity never comes back), so the guard has done
      // its work: whoever takes it after us finds a different lockfile and leaves it alone.
      try {
        unlinkSync(guard);
      } catch {}
      return true;
    }
    const other = readRawHolder(guard);
    // Another process is taking over (or did, and left its guard): let it, and look again.
    if (other === null || isAlive(other)) return false;
  }
}

/**
 * Once this process holds the lock, guards for stale lockfiles that are gone serve nobody; this
 * clears those left by a process that died mid-takeover.
 */
function removeTakeoverGuards(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(GUARD_PREFIX)) continue;
    try {
      unlinkSync(join(dataDir, name));
    } catch {}
  }
}

function readLockFile(file: string): LockFile | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const { ino, dev } = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    const identity = createHash('sha256').update(`${dev}:${ino}:${text}`).digest('hex').slice(0, 32);
    try {
      return { holder: JSON.parse(text) as LockHolder, identity };
    } catch {
      // An unreadable lockfile (a torn write from an old version, a disk error) has no live holder.
      return { holder: { pid: 0, hostname: hostname(), command: 'unknown', startedAt: '' }, identity };
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false; // kill(0 or -n) means a group
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

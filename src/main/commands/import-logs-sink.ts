// Decides where `docwright import-logs` writes, once, and keeps to it for the whole run:
// - with DATABASE_URL, on PostgreSQL directly (servers share it without harm);
// - when `docwright serve` holds the embedded database, through its control socket, one chunk
//   per admin command (the server applies it on the database it holds);
// - on a free data directory, on the embedded database opened here, locked for the whole import
//   (a server started meanwhile stops with a message naming the import).
// If the server stops during the import, the chunk that was refused is sent again wherever the
// database can then be reached; a chunk whose answer was lost is sent again too: the ledger
// applies each chunk once, so a repeat is recognised and changes nothing.
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config/config.ts';
import { DataDirLockedError, type LockHolder, readLockHolder } from '../../db/data-dir-lock.ts';
import { type OpenedDatabase, openDatabase } from '../../db/open.ts';
import type { ImportChunk, ImportSink, LedgerEntry } from '../../modules/analytics/index.ts';
import {
  applyChunk,
  type ChunkOutcome,
  currentDaySaltHex,
  foldImportedVisitors,
  readLedgerEntries,
} from '../../modules/analytics/index.ts';
import { ControlConnectionError, sendToServer } from '../control/control-client.ts';
import { isShortLivedHolder, WAIT_FOR_SHORT_HOLDER_MS } from '../open-when-free.ts';
import { importLogsChunk, importLogsLedger, importLogsSalt } from './import-logs-commands.ts';

const POLL_MS = 150;
/** Times one call is sent again after the server went away or its answer was lost. */
const RESENDS = 3;

type Where =
  | { kind: 'database'; opened: OpenedDatabase }
  | { kind: 'server'; socket: string; holder: LockHolder };

async function locate(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Where> {
  if (config.databaseUrl !== null)
    return { kind: 'database', opened: await openDatabase(config, 'import-logs') };
  const deadline = Date.now() + WAIT_FOR_SHORT_HOLDER_MS;
  for (;;) {
    const holder = readLockHolder(config.dataDir);
    if (holder === null) {
      try {
        return { kind: 'database', opened: await openDatabase(config, 'import-logs') };
      } catch (error) {
        if (!(error instanceof DataDirLockedError)) throw error;
      }
    } else if (holder.command === 'serve' && holder.hostname === hostname() && holder.controlSocket) {
      return { kind: 'server', socket: holder.controlSocket, holder };
    } else if (
      !(holder.command === 'serve' && holder.hostname === hostname()) &&
      !isShortLivedHolder(holder)
    ) {
      throw new DataDirLockedError(config.dataDir, holder);
    }
    if (Date.now() >= deadline) {
      const current = readLockHolder(config.dataDir);
      if (current) throw new DataDirLockedError(config.dataDir, current);
    }
    await sleep(POLL_MS);
  }
}

function describe(where: Where, config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (where.kind === 'server') {
    return `through the running server (pid ${where.holder.pid}${where.holder.url ? ` at ${where.holder.url}` : ''})`;
  }
  return config.databaseUrl !== null
    ? 'directly in PostgreSQL (DATABASE_URL)'
    : `directly in the embedded database in ${config.dataDir}`;
}

export async function openImportSink(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<ImportSink> {
  let where = await locate(config);

  async function call<T>(
    name: string,
    input: unknown,
    local: (opened: OpenedDatabase) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (where.kind === 'database') return local(where.opened);
      let outcome: Awaited<ReturnType<typeof sendToServer>>;
      try {
        outcome = await sendToServer(where.socket, name, input);
      } catch (error) {
        if (!(error instanceof ControlConnectionError) || attempt >= RESENDS) throw error;
        outcome = { delivered: false, reason: 'lost' };
      }
      if (outcome.delivered) return outcome.result as T;
      if (attempt >= RESENDS) {
        throw new ControlConnectionError(`The running server stopped answering (${outcome.reason}).`);
      }
      // The server stopped (or is stopping): find the database again and send the same call there.
      await sleep(POLL_MS);
      where = await locate(config);
    }
  }

  return {
    get where() {
      return describe(where, config);
    },
    readLedger(projectId, fingerprints) {
      const input = { projectId, fingerprints };
      return call<LedgerEntry[]>(importLogsLedger.name, input, (opened) =>
        readLedgerEntries(opened.db, projectId, fingerprints),
      );
    },
    applyChunk(chunk: ImportChunk) {
      return call<ChunkOutcome>(importLogsChunk.name, chunk, (opened) => applyChunk(opened.db, chunk));
    },
    currentDaySalt(day: string) {
      return call<string | null>(importLogsSalt.name, { day }, (opened) => currentDaySaltHex(opened.db, day));
    },
    async close() {
      if (where.kind !== 'database') return;
      // The last chunks' visitor ids, staged (ledger.ts), folded before the database closes. Through
      // a running server they wait for its next fold or read of visitors instead.
      try {
        await foldImportedVisitors(where.opened.db);
      } finally {
        await where.opened.close();
      }
    },
  };
}

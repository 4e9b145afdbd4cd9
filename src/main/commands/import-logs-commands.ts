// The admin commands behind `docwright import-logs`: read the ledger of some logs, apply one
// chunk, and give the current day's visitor salt (the importer hashes that day's lines with it;
// the control socket is the server owner's alone, who can read the salt table anyway). The CLI
// runs them on its own database, or sends them to the running server that holds the embedded
// database (they are listed in registry.ts for that).
import { Type } from 'typebox';
import {
  applyChunk,
  currentDaySaltHex,
  ImportChunkSchema,
  readLedgerEntries,
} from '../../modules/analytics/index.ts';
import { defineAdminCommand } from './admin-command.ts';

export const importLogsLedger = defineAdminCommand({
  name: 'import-logs ledger',
  input: Type.Object(
    {
      projectId: Type.String({ minLength: 1 }),
      fingerprints: Type.Array(Type.String({ pattern: '^[0-9a-f]{64}$' }), { maxItems: 1000 }),
    },
    { additionalProperties: false },
  ),
  run: (db, input) => readLedgerEntries(db, input.projectId, input.fingerprints),
});

export const importLogsChunk = defineAdminCommand({
  name: 'import-logs chunk',
  input: ImportChunkSchema,
  run: (db, input) => applyChunk(db, input),
});

export const importLogsSalt = defineAdminCommand({
  name: 'import-logs salt',
  input: Type.Object(
    { day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) },
    { additionalProperties: false },
  ),
  run: (db, input) => currentDaySaltHex(db, input.day),
});

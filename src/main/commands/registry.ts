// The admin commands a running server accepts on its control socket. A command that must work
// while `docwright serve` holds the embedded database is listed here; the CLI finds it by name
// and the server runs the same function on its own database. Each handler is a file of its own
// beside this one. Commands that go through the HTTP API (`jobs ...`, `views`) are not listed:
// the server answers them itself.
import type { AdminCommand } from './admin-command.ts';
import { agentsStored, agentsSync, agentsUnrecognized } from './agents-sync.ts';
import { importLogsChunk, importLogsLedger, importLogsSalt } from './import-logs-commands.ts';
import { keysCreate } from './keys-create.ts';
import { keysList } from './keys-list.ts';
import { keysRevoke } from './keys-revoke.ts';
import { projectsCreate } from './projects-create.ts';
import { projectsList } from './projects-list.ts';
import { projectsListSecrets, projectsSetSecret, projectsUnsetSecret } from './projects-secrets.ts';
import { projectsUpdate } from './projects-update.ts';
import { referrersStored, referrersSync } from './referrers-sync.ts';

// biome-ignore lint/suspicious/noExplicitAny: each command has its own input type; the socket checks it against the command's schema
const ALL: AdminCommand<any, unknown>[] = [
  projectsCreate,
  projectsList,
  projectsUpdate,
  projectsSetSecret,
  projectsListSecrets,
  projectsUnsetSecret,
  keysCreate,
  keysList,
  keysRevoke,
  importLogsLedger,
  importLogsChunk,
  importLogsSalt,
  agentsSync,
  agentsStored,
  agentsUnrecognized,
  referrersSync,
  referrersStored,
];

export const ADMIN_COMMANDS: ReadonlyMap<string, AdminCommand> = new Map(ALL.map((c) => [c.name, c]));

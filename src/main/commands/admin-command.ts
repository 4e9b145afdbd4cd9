// An admin command is a small function over the database, written once and run in one of two
// places: in the CLI's own process (PostgreSQL, or a free data directory), or inside the running
// server that holds the embedded database, which receives it over its control socket. So its
// input and result must be plain JSON, and its input is checked against a schema when it arrives.
import type { Static, TSchema } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { RepositoryAccess } from '../../modules/projects/index.ts';

/** What a command may need besides the database: whoever runs it (CLI or server) provides it. */
export interface AdminContext {
  /** The server key that seals stored secrets; the running server's own when run through it. */
  secretKey: Buffer;
  /** DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE of whoever runs it. */
  repositories: RepositoryAccess;
}

export interface AdminCommand<Input extends TSchema = TSchema, Result = unknown> {
  /** The words typed after `docwright`, e.g. "keys create"; also names the command on the socket. */
  name: string;
  input: Input;
  run(db: Database, input: Static<Input>, context: AdminContext): Promise<Result>;
}

export function defineAdminCommand<Input extends TSchema, Result>(
  command: AdminCommand<Input, Result>,
): AdminCommand<Input, Result> {
  return command;
}

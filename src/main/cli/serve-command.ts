// `docwright serve` and `docwright migrate`: the commands that need the database to themselves
// (on the embedded default) and so cannot run through a running server.
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import { createLogger } from '../../util/logger.ts';
import { schemaStatus } from '../commands/schema-status.ts';
import { openWhenFree } from '../open-when-free.ts';
import { surviveDatabaseOutages } from '../outage-guard.ts';
import { closeOnSignals } from '../shutdown.ts';
import { print } from './output.ts';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'start the HTTP API (and, on first start, create a demo project and print an admin key once)',
    )
    .addHelpText(
      'after',
      '\nConfigured by environment variables (see "docwright --help").\n' +
        'Stops gracefully on SIGTERM or SIGINT (Ctrl-C); a second signal exits at once.\n\n' +
        'Examples:\n' +
        '  docwright serve\n' +
        '  PORT=8080 HOST=0.0.0.0 DATABASE_URL=postgres://... DOCWRIGHT_SECRET_KEY=... docwright serve',
    )
    .action(async () => {
      const config = withSecretKey(loadConfig());
      const logger = createLogger(config.logLevel);
      surviveDatabaseOutages(logger);
      // Loaded here, not at the top: the HTTP stack would slow every other command's start.
      const { serve } = await import('../serve.ts');
      const starting = serve(config, { logger });
      // Installed before the server is up, so a signal during start-up still closes the database.
      closeOnSignals(async () => {
        const server = await starting.catch(() => null);
        await server?.close();
      }, logger);
      await starting;
    });
}

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (serve also does this at every start)')
    .addHelpText(
      'after',
      '\nSafe to run twice, or from several machines at once against one PostgreSQL database.\n' +
        'On the embedded database it needs the data directory to itself: stop the server first.\n\n' +
        'Example:\n  DATABASE_URL=postgres://... DOCWRIGHT_SECRET_KEY=... docwright migrate',
    )
    .action(async () => {
      const opened = await openWhenFree(withSecretKey(loadConfig()), 'migrate'); // migrates while opening
      try {
        const status = await schemaStatus(opened.db);
        print(
          `Database schema is up to date at version ${status.version} (${status.applied.map((m) => m.name).join(', ')}).`,
        );
      } finally {
        await opened.close();
      }
    });
}

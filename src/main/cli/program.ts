// The `docwright` command tree. Each group registers itself from its own file; the handlers that
// do the work live in src/main/commands/ so the server can run them too.
import { Command } from 'commander';
import packageJson from '../../../package.json' with { type: 'json' };
import { helpText } from '../../config/describe-variables.ts';
import { CONFIG_VARIABLES } from '../../config/variables.ts';
import { registerAgentsCommands } from './agents-command.ts';
import { registerAgentsReportCommand, registerMcpToolsCommand } from './agents-report-command.ts';
import { registerAutomationsCommands } from './automations-commands.ts';
import { CLIENT_VARIABLES } from './client-options.ts';
import { registerImportLogsCommand } from './import-logs-command.ts';
import { registerJobsCommands } from './jobs-commands.ts';
import { registerKeyCommands } from './keys-commands.ts';
import { registerMcpCommand } from './mcp-command.ts';
import { registerProjectCommands } from './projects-commands.ts';
import { registerMigrateCommand, registerServeCommand } from './serve-command.ts';
import { registerUsageCommand } from './usage-command.ts';
import { registerViewsCommand } from './views-command.ts';
import { registerVisitorsCommand } from './visitors-command.ts';
import { registerWorkerCommand } from './worker-command.ts';

/** One variable a line, each description in one column two spaces after the longest name. */
function variableList(variables: Record<string, string>, width: number): string {
  return Object.entries(variables)
    .map(([name, text]) => `  ${name.padEnd(width)}${text}`)
    .join('\n');
}

/** The server's variables with their --help text, from their declarations. */
const SERVER_VARIABLE_HELP = Object.fromEntries(
  Object.entries(CONFIG_VARIABLES).map(([name, schema]) => [name, helpText(schema)]),
);

const VARIABLE_COLUMN =
  Math.max(
    ...[...Object.keys(CONFIG_VARIABLES), ...Object.keys(CLIENT_VARIABLES)].map((name) => name.length),
  ) + 2;

export function buildProgram(): Command {
  const program = new Command('docwright')
    .description(packageJson.description)
    .version(packageJson.version)
    // Errors come back to cli.ts, which picks the exit status (2 for usage mistakes).
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `\nEnvironment variables (read once at start):\n${variableList(SERVER_VARIABLE_HELP, VARIABLE_COLUMN)}` +
        `\n\nRead by the client commands (jobs, views, visitors, agents-report, usage, mcp) only:\n${variableList(CLIENT_VARIABLES, VARIABLE_COLUMN)}` +
        '\n\nEvery command with examples: docs/cli.md',
    );

  registerServeCommand(program);
  registerMigrateCommand(program);
  registerWorkerCommand(program);
  registerProjectCommands(program);
  registerKeyCommands(program);
  registerImportLogsCommand(program);
  registerAgentsCommands(program);
  // Client commands: they talk to a server over HTTP with the typed client (src/sdk).
  registerJobsCommands(program);
  registerAutomationsCommands(program);
  registerViewsCommand(program);
  registerVisitorsCommand(program);
  registerAgentsReportCommand(program);
  registerMcpToolsCommand(program);
  registerMcpCommand(program);
  registerUsageCommand(program);
  // Commands that later work adds register here, one file each under src/main/cli/.
  // If they touch the database, write their handlers under src/main/commands/ and list them in
  // src/main/commands/registry.ts so they also work while `docwright serve` holds the data directory.

  return program;
}

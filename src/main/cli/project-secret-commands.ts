// `docwright projects set-secret | secrets | unset-secret`: the secrets a project runs with
// (code-host token, model API key, GitHub App key, webhook secret), stored sealed, never shown.
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import { PROJECT_SECRET_NAMES } from '../../modules/projects/index.ts';
import { projectsListSecrets, projectsSetSecret, projectsUnsetSecret } from '../commands/projects-secrets.ts';
import { runAdminCommand } from '../control/run-admin-command.ts';
import { print, printJson } from './output.ts';
import { readSecretValue } from './read-secret.ts';
import { UsageError } from './usage-error.ts';

const NAMES_HELP = Object.entries(PROJECT_SECRET_NAMES)
  .map(([name, text]) => `  ${name.padEnd(20)}${text}`)
  .join('\n');

export function registerProjectSecretCommands(projects: Command): void {
  projects
    .command('set-secret')
    .description("store one of a project's secrets, sealed with the server key; the value is read from stdin")
    .argument('<projectId>', 'the project (prj_...)')
    .argument('<name>', `one of: ${Object.keys(PROJECT_SECRET_NAMES).join(', ')}`)
    .addHelpText(
      'after',
      `\nSecrets:\n${NAMES_HELP}\n\nThe value is never taken from the command line (other users could read it in the process list):\n` +
        'pipe it in, or type it at the hidden prompt.\n\nExamples:\n' +
        '  printf %s "$GITHUB_TOKEN" | docwright projects set-secret prj_123 codeHostToken\n' +
        '  docwright projects set-secret prj_123 modelApiKey      # prompts, input hidden',
    )
    .action(async (projectId: string, name: string) => {
      const value = (await readSecretValue(`Value of ${name}`)).trim();
      if (value === '')
        throw new UsageError('the secret value is empty: pipe it in or type it at the prompt.');
      await runAdminCommand(withSecretKey(loadConfig()), projectsSetSecret, { projectId, name, value });
      print(`Stored ${name} for ${projectId} (sealed; it is never shown again).`);
    });

  projects
    .command('secrets')
    .description("list which of a project's secrets are set (names only, never values)")
    .argument('<projectId>', 'the project (prj_...)')
    .option('--json', 'print a JSON array of {name, updatedAt, suspendedFor?}')
    .action(async (projectId: string, options: { json?: boolean }) => {
      const secrets = await runAdminCommand(withSecretKey(loadConfig()), projectsListSecrets, { projectId });
      if (options.json) return printJson(secrets);
      const set = new Map(secrets.map((s) => [s.name, s]));
      const state = (name: string) => {
        const s = set.get(name);
        if (!s) return 'not set';
        // Stored for another code host than the project's now: jobs do not send it.
        if (s.suspendedFor) return `suspended (stored for ${s.suspendedFor}; set it again)`;
        return `set (${s.updatedAt})`;
      };
      print(
        Object.keys(PROJECT_SECRET_NAMES)
          .map((name) => `${name.padEnd(20)}${state(name)}`)
          .join('\n'),
      );
    });

  projects
    .command('unset-secret')
    .description("remove one of a project's secrets")
    .argument('<projectId>', 'the project (prj_...)')
    .argument('<name>', `one of: ${Object.keys(PROJECT_SECRET_NAMES).join(', ')}`)
    .action(async (projectId: string, name: string) => {
      const result = await runAdminCommand(withSecretKey(loadConfig()), projectsUnsetSecret, {
        projectId,
        name,
      });
      print(result.removed ? `Removed ${name} from ${projectId}.` : `${name} was not set for ${projectId}.`);
    });
}

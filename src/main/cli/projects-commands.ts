// `docwright projects create | list | update`.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import { CODE_HOST_KINDS } from '../../modules/projects/index.ts';
import { projectsCreate } from '../commands/projects-create.ts';
import { projectsList } from '../commands/projects-list.ts';
import { projectsUpdate } from '../commands/projects-update.ts';
import { runAdminCommand } from '../control/run-admin-command.ts';
import { print, printJson } from './output.ts';
import { registerProjectSecretCommands } from './project-secret-commands.ts';
import { renderProject, renderProjects } from './render.ts';
import { UsageError } from './usage-error.ts';

type CodeHostKind = (typeof CODE_HOST_KINDS)[number];

interface ProjectFieldOptions {
  name?: string;
  repository?: string;
  ref?: string;
  codeHost?: CodeHostKind;
  codeHostUrl?: string;
  codeHostApiUrl?: string;
  model?: string;
  json?: boolean;
}

function addFieldOptions(command: Command, required: boolean): Command {
  const text = (option: string, description: string) =>
    required && (option.startsWith('--name') || option.startsWith('--repository'))
      ? command.requiredOption(option, description)
      : command.option(option, description);
  text('--name <name>', 'the project name, 1 to 200 characters');
  text('--repository <url>', 'https URL of the docs repository, e.g. https://github.com/acme/docs');
  command.option(
    '--ref <branch>',
    `branch the agent starts from and opens pull requests against${required ? ' (default: main)' : ''}`,
  );
  command.addOption(
    new Option(
      '--code-host <kind>',
      'where the repository is hosted (detected for github.com, gitlab.com, codeberg.org, gitea.com)',
    ).choices(CODE_HOST_KINDS),
  );
  command.option(
    '--code-host-url <url>',
    `web address of a self-hosted GitHub Enterprise, GitLab or Gitea, e.g. https://git.example.com; the API is found under it (/api/v3, /api/v4, /api/v1)${required ? '' : ' ("" clears it)'}`,
  );
  command.option(
    '--code-host-api-url <url>',
    `API root to call as is, when it is not under --code-host-url (e.g. GitHub Enterprise behind a proxy: https://git.example.com/github-api)${required ? '' : ' ("" clears it)'}`,
  );
  command.option(
    '--model <provider:model>',
    `model for this project's agent jobs, e.g. anthropic:claude-sonnet-4-5${required ? ' (default: the server default, DOCWRIGHT_MODEL)' : ' ("" returns to the server default)'}`,
  );
  command.option('--json', 'print the project as one JSON object');
  return command;
}

function fields(options: ProjectFieldOptions) {
  return {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.repository !== undefined ? { repositoryUrl: options.repository } : {}),
    ...(options.ref !== undefined ? { ref: options.ref } : {}),
    ...(options.codeHost !== undefined ? { codeHostKind: options.codeHost } : {}),
    ...(options.codeHostUrl !== undefined ? { codeHostBaseUrl: options.codeHostUrl } : {}),
    ...(options.codeHostApiUrl !== undefined ? { codeHostApiUrl: options.codeHostApiUrl } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
  };
}

/** --setting key=value, repeatable; value is JSON and null removes the setting. */
function collectSetting(raw: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const at = raw.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('write it as key=value, e.g. draftPullRequests=true.');
  const key = raw.slice(0, at).trim();
  const text = raw.slice(at + 1);
  try {
    return { ...previous, [key]: JSON.parse(text) };
  } catch {
    throw new InvalidArgumentError(
      `the value of ${key} must be JSON: true, 25, ["docs/legal/**"], "text" (quoted), or null to remove it.`,
    );
  }
}

export function registerProjectCommands(program: Command): void {
  const projects = program
    .command('projects')
    .description('create, list and change projects (a docs repository and its settings)');

  addFieldOptions(
    projects
      .command('create')
      .description('create a project')
      .addHelpText(
        'after',
        '\nExample:\n  docwright projects create --name "Acme docs" --repository https://github.com/acme/docs --ref main',
      ),
    true,
  ).action(async (options: ProjectFieldOptions & { name: string; repository: string }) => {
    const project = await runAdminCommand(withSecretKey(loadConfig()), projectsCreate, {
      ...fields(options),
      name: options.name,
      repositoryUrl: options.repository,
    });
    if (options.json) printJson(project);
    else
      print(
        `${renderProject('Created', project)}\nCreate an API key for it: docwright keys create --project ${project.id}`,
      );
  });

  projects
    .command('list')
    .description('list every project')
    .option('--json', 'print a JSON array of projects')
    .addHelpText('after', '\nExample:\n  docwright projects list')
    .action(async (options: { json?: boolean }) => {
      const list = await runAdminCommand(withSecretKey(loadConfig()), projectsList, {});
      if (options.json) printJson(list);
      else print(renderProjects(list));
    });

  addFieldOptions(
    projects
      .command('update')
      .description('change some fields of a project; the others keep their values')
      .argument('<projectId>', 'the project to change (prj_...)'),
    false,
  )
    .option(
      '--setting <key=json>',
      'set one project setting (repeatable); the value is JSON, null removes the setting. ' +
        'Settings: draftPullRequests, deniedPaths, maxSteps, maxTotalTokens, wallTimeSeconds, allowedOrigins, githubAppId, githubAppInstallationId',
      collectSetting,
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  docwright projects update prj_123 --repository https://github.com/acme/docs --ref main\n' +
        '  docwright projects update prj_123 --setting draftPullRequests=true --setting \'deniedPaths=["legal/**"]\'',
    )
    .action(async (id: string, options: ProjectFieldOptions & { setting?: Record<string, unknown> }) => {
      const changes = fields(options);
      if (Object.keys(changes).length === 0 && options.setting === undefined) {
        throw new UsageError(
          'nothing to change: give at least one of --name, --repository, --ref, --code-host, --code-host-url, --code-host-api-url, --model, --setting.',
        );
      }
      const project = await runAdminCommand(withSecretKey(loadConfig()), projectsUpdate, {
        id,
        ...changes,
        ...(options.setting !== undefined ? { settings: options.setting } : {}),
      });
      if (options.json) printJson(project);
      else print(renderProject('Updated', project));
    });

  registerProjectSecretCommands(projects);
}

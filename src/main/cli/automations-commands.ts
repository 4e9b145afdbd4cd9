// `docwright automations list | get | create | update | delete | runs`: automations through the
// HTTP API with the typed client (src/sdk), on the server at DOCWRIGHT_URL.
import { type Command, InvalidArgumentError } from 'commander';
import type { Automation, AutomationCreateBody, AutomationRun } from '../../sdk/index.ts';
import {
  addClientOptions,
  CLIENT_VARIABLES,
  type ClientFlags,
  clientSettings,
  runClientCommand,
} from './client-options.ts';
import { print, printJson, table } from './output.ts';
import { UsageError } from './usage-error.ts';

interface OutputFlags {
  json?: boolean;
}

interface DefinitionFlags {
  name?: string;
  prompt?: string;
  webhook?: boolean;
  cron?: string;
  timezone?: string;
  watch?: string;
  reviewComments?: boolean | string;
  on?: 'merged_pull_request' | 'push';
  branch?: string[];
  path?: string[];
  label?: string[];
  maxOpenPrs?: number;
  dailyCap?: number;
  grouping?: boolean;
  quietSeconds?: number;
  enabled?: boolean;
}

const settingsOf = (flags: ClientFlags) => clientSettings(flags, process.env);

const wholeNumber = (name: string, min: number, max: number) => (raw: string) => {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
  }
  return Number(raw);
};
const collect = (value: string, previous: string[] = []) => [...previous, value];

const ENVIRONMENT_HELP = `\nServer, key and project come from --url, --key and --project, else:\n${Object.entries(
  CLIENT_VARIABLES,
)
  .map(([name, text]) => `  ${name.padEnd(19)}${text}`)
  .join('\n')}`;

function addDefinitionOptions(command: Command): Command {
  return command
    .option('--name <name>', 'what the automation is called')
    .option(
      '--prompt <template>',
      'the prompt template; {{event.title}}, {{event.body}}... are filled per run',
    )
    .option('--webhook', 'trigger: a trigger URL with its own secret (printed once)')
    .option('--cron <expression>', 'trigger: a 5-field cron schedule')
    .option('--timezone <zone>', 'with --cron: an IANA time zone (default UTC)')
    .option(
      '--watch <host:owner/name>',
      'trigger: merged pull requests of a repository, e.g. github:acme/engine',
    )
    .option(
      '--review-comments [handle]',
      "trigger: comments on docwright's pull requests as follow-ups (only those mentioning the handle, e.g. @docwright, when given)",
    )
    .option('--on <event>', 'with --watch: merged_pull_request (default) or push')
    .option('--branch <name>', 'with --watch: a target branch (repeatable; default main)', collect)
    .option('--path <prefix>', 'with --watch --on push: a changed-file prefix (repeatable)', collect)
    .option('--label <name>', 'with --watch: a pull request label (repeatable)', collect)
    .option(
      '--max-open-prs <n>',
      'skip runs while this many of its jobs are open',
      wholeNumber('--max-open-prs', 1, 100),
    )
    .option('--daily-cap <n>', 'runs started per UTC day', wholeNumber('--daily-cap', 1, 1000))
    .option('--grouping', "add each run's change to the automation's open pull request")
    .option(
      '--quiet-seconds <n>',
      'gather events for this long into one run',
      wholeNumber('--quiet-seconds', 0, 86_400),
    );
}

/** The trigger the flags describe, or undefined when they name none. */
function triggerOf(flags: DefinitionFlags): AutomationCreateBody['trigger'] | undefined {
  const chosen = [flags.webhook, flags.cron, flags.watch, flags.reviewComments].filter(
    (f) => f !== undefined && f !== false,
  );
  if (chosen.length > 1) {
    throw new UsageError('give one trigger: --webhook, --cron, --watch or --review-comments.');
  }
  if (flags.webhook) return { type: 'webhook' };
  if (flags.reviewComments !== undefined && flags.reviewComments !== false) {
    return {
      type: 'review_comment',
      ...(typeof flags.reviewComments === 'string' ? { mention: flags.reviewComments } : {}),
    };
  }
  if (flags.cron !== undefined) {
    return { type: 'schedule', cron: flags.cron, ...(flags.timezone ? { timezone: flags.timezone } : {}) };
  }
  if (flags.watch !== undefined) {
    const match = /^(github|gitlab|gitea):(.+)$/.exec(flags.watch);
    if (!match) throw new UsageError('--watch takes host:owner/name, with host github, gitlab or gitea.');
    return {
      type: 'code_change',
      host: match[1] as 'github' | 'gitlab' | 'gitea',
      repository: match[2]!,
      ...(flags.on ? { on: flags.on } : {}),
      ...(flags.branch ? { branches: flags.branch } : {}),
      ...(flags.path ? { paths: flags.path } : {}),
      ...(flags.label ? { labels: flags.label } : {}),
    };
  }
  return undefined;
}

function limitsOf(flags: DefinitionFlags): AutomationCreateBody['limits'] {
  return {
    ...(flags.maxOpenPrs === undefined ? {} : { maxOpenPullRequests: flags.maxOpenPrs }),
    ...(flags.dailyCap === undefined ? {} : { dailyRunCap: flags.dailyCap }),
    ...(flags.grouping ? { grouping: true } : {}),
    ...(flags.quietSeconds === undefined ? {} : { quietPeriodSeconds: flags.quietSeconds }),
  };
}

function describeTrigger(a: Automation): string {
  const t = a.trigger;
  if (t.type === 'webhook') return `webhook ${a.triggerUrl ?? ''}`;
  if (t.type === 'review_comment') return `review_comment ${t.mention ?? '(every comment)'}`;
  if (t.type === 'schedule')
    return `schedule "${t.cron}" ${t.timezone ?? 'UTC'} (next ${a.nextRunAt ?? 'never'})`;
  return `code_change ${t.host}:${t.repository} ${t.on ?? 'merged_pull_request'} into ${(t.branches ?? ['main']).join(', ')}`;
}

function renderAutomation(a: Automation): string {
  const lines = [
    `${a.id}  ${a.name}${a.enabled ? '' : '  (disabled)'}`,
    `  trigger:  ${describeTrigger(a)}`,
    `  limits:   ${a.limits.maxOpenPullRequests} open PRs, ${a.limits.dailyRunCap} runs/day, grouping ${a.limits.grouping ? 'on' : 'off'}, quiet ${a.limits.quietPeriodSeconds} s`,
    `  prompt:   ${a.promptTemplate.split('\n')[0]}`,
  ];
  if (a.triggerSecret) {
    lines.push(
      `  secret:   ${a.triggerSecret}`,
      '  (shown once: call the trigger URL with "Authorization: Bearer <secret>")',
    );
  }
  return lines.join('\n');
}

function renderRuns(runs: AutomationRun[]): string {
  if (runs.length === 0) return 'No runs yet.';
  return table(
    ['run', 'trigger', 'status', 'job', 'created', 'why skipped / sources'],
    runs.map((r) => [
      r.id,
      r.trigger,
      r.followedUp ? `${r.status} (follow-up)` : r.status,
      r.jobId ?? '-',
      r.createdAt,
      r.skipReason ?? r.sources.join(' '),
    ]),
  );
}

export function registerAutomationsCommands(program: Command): void {
  const automations = program
    .command('automations')
    .description(
      'automations through the API: jobs started by code changes, schedules, trigger URLs and review comments',
    )
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExamples:\n` +
        '  docwright automations create --name "Follow the engine" --watch github:acme/engine \\\n' +
        '    --prompt "Update the docs for {{event.title}}: {{event.body}}" --grouping\n' +
        '  docwright automations create --name Weekly --cron "0 9 * * 1" --timezone Europe/Berlin --prompt "Check links"\n' +
        '  docwright automations runs aut_123',
    );

  addClientOptions(automations.command('list').description("list the project's automations"))
    .option('--json', 'print a JSON array')
    .action(async (flags: ClientFlags & OutputFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        const found = await client.listAutomations(projectId);
        if (flags.json) printJson(found);
        else print(found.length === 0 ? 'No automations.' : found.map(renderAutomation).join('\n\n'));
      }),
    );

  addClientOptions(automations.command('get').description('show an automation').argument('<automationId>'))
    .option('--json', 'print one JSON object')
    .action(async (id: string, flags: ClientFlags & OutputFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        const automation = await client.getAutomation(projectId, id);
        if (flags.json) printJson(automation);
        else print(renderAutomation(automation));
      }),
    );

  addDefinitionOptions(addClientOptions(automations.command('create').description('create an automation')))
    .option('--disabled', 'create it disabled')
    .option('--json', 'print one JSON object')
    .action(async (flags: ClientFlags & OutputFlags & DefinitionFlags & { disabled?: boolean }) =>
      runClientCommand(async () => {
        const trigger = triggerOf(flags);
        if (flags.name === undefined || flags.prompt === undefined || trigger === undefined) {
          throw new UsageError(
            'create needs --name, --prompt and one trigger (--webhook, --cron, --watch or --review-comments).',
          );
        }
        const { client, projectId } = settingsOf(flags);
        const automation = await client.createAutomation(projectId, {
          name: flags.name,
          promptTemplate: flags.prompt,
          trigger,
          limits: limitsOf(flags),
          ...(flags.disabled ? { enabled: false } : {}),
        });
        if (flags.json) printJson(automation);
        else print(`Created automation ${automation.id}.\n${renderAutomation(automation)}`);
      }),
    );

  addDefinitionOptions(
    addClientOptions(
      automations.command('update').description('change an automation').argument('<automationId>'),
    ),
  )
    .option('--enable', 'enable it')
    .option('--disable', 'disable it')
    .option('--rotate-secret', 'webhook: make a new trigger secret (printed once)')
    .option('--json', 'print one JSON object')
    .action(
      async (
        id: string,
        flags: ClientFlags &
          OutputFlags &
          DefinitionFlags & { enable?: boolean; disable?: boolean; rotateSecret?: boolean },
      ) =>
        runClientCommand(async () => {
          if (flags.enable && flags.disable) throw new UsageError('give --enable or --disable, not both.');
          const trigger = triggerOf(flags);
          const limits = limitsOf(flags);
          const { client, projectId } = settingsOf(flags);
          const automation = await client.updateAutomation(projectId, id, {
            ...(flags.name === undefined ? {} : { name: flags.name }),
            ...(flags.prompt === undefined ? {} : { promptTemplate: flags.prompt }),
            ...(trigger === undefined ? {} : { trigger }),
            ...(limits && Object.keys(limits).length > 0 ? { limits } : {}),
            ...(flags.enable ? { enabled: true } : flags.disable ? { enabled: false } : {}),
            ...(flags.rotateSecret ? { rotateTriggerSecret: true } : {}),
          });
          if (flags.json) printJson(automation);
          else print(`Updated automation ${automation.id}.\n${renderAutomation(automation)}`);
        }),
    );

  addClientOptions(
    automations.command('delete').description('delete an automation').argument('<automationId>'),
  ).action(async (id: string, flags: ClientFlags) =>
    runClientCommand(async () => {
      const { client, projectId } = settingsOf(flags);
      await client.deleteAutomation(projectId, id);
      print(`Deleted automation ${id}.`);
    }),
  );

  addClientOptions(
    automations.command('runs').description("an automation's runs, newest first").argument('<automationId>'),
  )
    .option('--limit <n>', 'show at most this many runs (default 20)', wholeNumber('--limit', 1, 100))
    .option('--json', 'print a JSON array')
    .action(async (id: string, flags: ClientFlags & OutputFlags & { limit?: number }) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        const page = await client.listAutomationRuns(
          projectId,
          id,
          flags.limit === undefined ? {} : { limit: flags.limit },
        );
        if (flags.json) printJson(page.runs);
        else print(renderRuns(page.runs));
      }),
    );
}

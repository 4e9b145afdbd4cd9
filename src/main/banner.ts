// What `docwright serve` prints for people, as plain text beside the JSON log lines. The admin key
// and the setup link are secrets shown once: they are printed only to a terminal (see serve.ts);
// elsewhere they go to an owner-only file and the banner names the file. They are never logged.
import type { FirstStart } from './first-start.ts';

const DEFAULT_URL = 'http://127.0.0.1:3000';

export function startBanner(info: { baseUrl: string; database: string }): string {
  return [
    '',
    `docwright is running at ${info.baseUrl}`,
    `  Dashboard: ${info.baseUrl}/app`,
    `  API docs:  ${info.baseUrl}/docs`,
    `  Database:  ${info.database}`,
    '',
  ].join('\n');
}

/** `cli` is how to run the docwright command here (see cli-command.ts). */
export function firstStartBanner(first: FirstStart, baseUrl: string, cli: string): string {
  const lines = [
    '',
    'First start: created a demo project and an admin API key for it.',
    '',
    `  Project ID:  ${first.project.id}`,
    `  API key:     ${first.adminKey}`,
    '               (shown once: store it now. It will not be shown again.)',
    `  API base:    ${baseUrl}`,
    `  API docs:    ${baseUrl}/docs`,
    '',
    `The demo project points at ${first.project.repositoryUrl}, which is only an example.`,
    'Point it at your docs repository with:',
    `  ${cli} projects update ${first.project.id} --repository https://github.com/YOU/YOUR-DOCS`,
    '',
    "Copy these lines into your shell to run the README's curl examples:",
  ];
  if (baseUrl !== DEFAULT_URL) lines.push(`  export DOCWRIGHT_URL=${baseUrl}`);
  lines.push(
    `  export DOCWRIGHT_PROJECT=${first.project.id}`,
    `  export DOCWRIGHT_API_KEY=${first.adminKey}`,
    '',
  );
  return lines.join('\n');
}

/**
 * While no dashboard account exists, each start prints a one-time setup link. The code is in the
 * fragment (#code=...), which browsers never send to a server, so it reaches no access log.
 */
export function setupLinkBanner(baseUrl: string, setupCode: string): string {
  return [
    '',
    'Set up the dashboard: open this link and create the owner account (it works once, for 24 hours;',
    'a restart prints a new one while no account exists):',
    '',
    `  ${baseUrl}/app/setup#code=${setupCode}`,
    '',
  ].join('\n');
}

/** Instead of the first-start banner when stdout is not a terminal. */
export function firstStartFileNotice(file: string): string {
  return [
    '',
    'First start: created a demo project and an admin API key for it. They are not printed here,',
    'since this output is not a terminal (a log may keep it). They are in this file, readable by',
    'this user only; store the key, then delete the file:',
    `  ${file}`,
    '',
  ].join('\n');
}

/** Instead of the setup link when stdout is not a terminal. */
export function setupLinkFileNotice(file: string): string {
  return [
    '',
    "Set up the dashboard: the one-time link to create the owner account is in this file (this user's only):",
    `  ${file}`,
    '',
  ].join('\n');
}

/** On later starts: how to get a key, since the first one is never shown again. */
export function laterStartHint(cli: string): string {
  return `\nNeed an API key? ${cli} keys create --project <projectId> (${cli} projects list shows the ids)\n`;
}

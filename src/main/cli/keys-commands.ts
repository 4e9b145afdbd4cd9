// `docwright keys create | list | revoke`.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import { KEY_SCOPES, parseExpiry } from '../../modules/keys/index.ts';
import { keysCreate } from '../commands/keys-create.ts';
import { keysList } from '../commands/keys-list.ts';
import { keysRevoke } from '../commands/keys-revoke.ts';
import { runAdminCommand } from '../control/run-admin-command.ts';
import { print, printJson } from './output.ts';
import { renderCreatedKey, renderKeys, renderRevokedKey } from './render.ts';

/** Relative expiries count from now, on this machine's clock. */
function expiryOption(raw: string): string {
  const at = parseExpiry(raw);
  if (at === null) {
    throw new InvalidArgumentError(
      'use a duration (30d, 12h, 90m, 2w) or an ISO 8601 time such as 2026-01-31 or 2026-01-31T12:00:00Z.',
    );
  }
  return at.toISOString();
}

export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description("create, list and revoke a project's API keys (Authorization: Bearer dw_...)");

  keys
    .command('create')
    .description('create an API key; it is shown once and never again')
    .requiredOption('--project <projectId>', 'the project the key belongs to (prj_...)')
    .option('--name <name>', 'a name to recognise the key by (default: "<scope> key")')
    .addOption(
      new Option(
        '--scope <scope>',
        'admin: everything; read: GET routes only; ingest: page-view ingestion only',
      )
        .choices(KEY_SCOPES)
        .default('admin'),
    )
    .option(
      '--expires <when>',
      'expiry: a duration (30d, 12h, 90m, 2w) or an ISO 8601 time (default: never)',
      expiryOption,
    )
    .option('--json', 'print {"id","key","projectId","name","scope","prefix","createdAt","expiresAt"}')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  docwright keys create --project prj_123 --name ci --scope admin --expires 90d\n' +
        '  docwright keys create --project prj_123 --scope ingest --json | jq -r .key',
    )
    .action(
      async (options: {
        project: string;
        name?: string;
        scope: string;
        expires?: string;
        json?: boolean;
      }) => {
        const created = await runAdminCommand(withSecretKey(loadConfig()), keysCreate, {
          projectId: options.project,
          scope: options.scope,
          ...(options.name !== undefined ? { name: options.name } : {}),
          ...(options.expires !== undefined ? { expiresAt: options.expires } : {}),
        });
        if (options.json) printJson(created);
        else print(renderCreatedKey(created));
      },
    );

  keys
    .command('list')
    .description("list a project's keys by their prefix (never the keys themselves)")
    .requiredOption('--project <projectId>', 'the project (prj_...)')
    .option('--json', 'print a JSON array of keys (id, projectId, name, scope, prefix, times)')
    .addHelpText('after', '\nExample:\n  docwright keys list --project prj_123')
    .action(async (options: { project: string; json?: boolean }) => {
      const list = await runAdminCommand(withSecretKey(loadConfig()), keysList, {
        projectId: options.project,
      });
      if (options.json) printJson(list);
      else print(renderKeys(list));
    });

  keys
    .command('revoke')
    .description('revoke a key: requests with it are refused (401) from this moment')
    .argument('<keyId>', 'the key id (key_...), as shown by keys list')
    .option('--json', 'print the revoked key as one JSON object')
    .addHelpText('after', '\nExample:\n  docwright keys revoke key_123')
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await runAdminCommand(withSecretKey(loadConfig()), keysRevoke, { id });
      if (options.json) printJson(revoked);
      else print(renderRevokedKey(revoked));
    });
}

// `docwright import-logs`: access logs into a project's page-view counts.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../../config/config.ts';
import { withSecretKey } from '../../config/secret-key-file.ts';
import type { FieldMap } from '../../modules/analytics/index.ts';
import {
  DEFAULT_CHUNK_LIMITS,
  FORMATS,
  FormatError,
  type LogFormat,
  PRESETS,
  parseMapping,
  useSyncedAgents,
  useSyncedReferrers,
} from '../../modules/analytics/index.ts';
import { classificationWithExtraLists } from '../commands/agents-list.ts';
import { agentsStored } from '../commands/agents-sync.ts';
import { renderImportSummary } from '../commands/import-logs-render.ts';
import { importLogs } from '../commands/import-logs-run.ts';
import { referrersStored } from '../commands/referrers-sync.ts';
import { runAdminCommand } from '../control/run-admin-command.ts';
import { print, printJson } from './output.ts';
import { UsageError } from './usage-error.ts';

function collectMap(raw: string, previous: FieldMap = {}): FieldMap {
  try {
    const [field, key] = parseMapping(raw);
    return { ...previous, [field]: key };
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--map: /, ''));
  }
}

function chunkLines(raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000_000) {
    throw new InvalidArgumentError('give a whole number of lines from 1 to 10000000.');
  }
  return n;
}

export function registerImportLogsCommand(program: Command): void {
  program
    .command('import-logs')
    .description(
      'count the page views in access logs (combined format or JSON lines, .gz too); safe to run twice',
    )
    .requiredOption('--project <projectId>', 'the project the views count for (prj_...)')
    .addOption(
      new Option(
        '--format <format>',
        'log format (default: JSON when a log starts with "{", else combined)',
      ).choices(FORMATS),
    )
    .addOption(
      new Option('--preset <host>', "field names of a host's JSON logs (implies --format json)").choices(
        Object.keys(PRESETS),
      ),
    )
    .option(
      '--map <field=key>',
      'read a record field from a JSON key (repeatable; dotted paths and a+b joins allowed). ' +
        'Fields: timestamp, url, path, method, status, userAgent, ip, accept, referrer',
      collectMap,
    )
    .option(
      '--chunk-lines <n>',
      `lines per transaction (default ${DEFAULT_CHUNK_LIMITS.lines}); a crash re-reads at most one chunk`,
      chunkLines,
    )
    .option('--json', 'print the summary as one JSON document')
    .option('--no-progress', 'no progress display on stderr')
    .argument('<files...>', 'log files (plain or gzip), or - for standard input')
    .addHelpText(
      'after',
      '\nEach log is counted once: a log imported again, or a grown log, adds only its new lines\n' +
        '(see docs/log-import.md). Exit status 1 when a log failed; the others are still imported.\n\n' +
        'Examples:\n' +
        '  docwright import-logs --project prj_123 /var/log/nginx/access.log /var/log/nginx/access.log.*.gz\n' +
        '  zcat archive/*.gz | docwright import-logs --project prj_123 -\n' +
        '  docwright import-logs --project prj_123 --preset cloudflare logs/*.log.gz\n' +
        '  docwright import-logs --project prj_123 --map userAgent=ClientRequestUserAgent \\\n' +
        '      --map path=ClientRequestURI --map timestamp=EdgeStartTimestamp cf.json',
    )
    .action(
      async (
        files: string[],
        options: {
          project: string;
          format?: LogFormat;
          preset?: string;
          map?: FieldMap;
          json?: boolean;
          progress: boolean;
          chunkLines?: number;
        },
      ) => {
        if (files.filter((f) => f === '-').length > 1)
          throw new UsageError('standard input (-) can be read once only.');
        const config = withSecretKey(loadConfig());
        const classification = classificationWithExtraLists(config.extraAgentLists, { webBotAuth: false });
        // The synced agent list the servers use, so imported views are classified alike.
        const stored = await runAdminCommand(config, agentsStored, {});
        if (stored !== null)
          useSyncedAgents(classification, { ...stored, syncedAt: new Date(stored.syncedAt) });
        // And the synced AI-referrer list, so referrals from logs name the same assistants.
        const referrers = await runAdminCommand(config, referrersStored, {});
        if (referrers !== null)
          useSyncedReferrers(classification, { ...referrers, syncedAt: new Date(referrers.syncedAt) });
        let result: Awaited<ReturnType<typeof importLogs>>;
        try {
          result = await importLogs(config, {
            projectId: options.project,
            files,
            format: {
              ...(options.format ? { format: options.format } : {}),
              ...(options.preset ? { preset: options.preset } : {}),
              ...(options.map ? { map: options.map } : {}),
            },
            classification,
            ...(options.chunkLines
              ? { chunkLimits: { ...DEFAULT_CHUNK_LIMITS, lines: options.chunkLines } }
              : {}),
            progress: options.progress ? process.stderr : null,
          });
        } catch (error) {
          if (error instanceof FormatError) throw new UsageError(error.message);
          throw error;
        }
        if (options.json) printJson(result);
        else print(renderImportSummary(result));
        if (result.sources.some((s) => s.status === 'failed')) process.exitCode = 1;
      },
    );
}

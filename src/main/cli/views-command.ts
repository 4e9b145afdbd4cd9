// `docwright views`: the page-view export (human and AI views per page) through the API, every
// page of it, as a table, one JSON object, or CSV; --format counts one format's views only.
import { type Command, Option } from 'commander';
import { VIEW_FORMATS, type ViewFormat } from '../../contract/index.ts';
import {
  addClientOptions,
  CLIENT_VARIABLES,
  type ClientFlags,
  clientSettings,
  runClientCommand,
} from './client-options.ts';
import { renderViews } from './client-render.ts';
import { print, printJson } from './output.ts';

export interface ExportFlags extends ClientFlags {
  from?: string;
  to?: string;
  json?: boolean;
  csv?: boolean;
}

/** --from, --to, and --json | --csv, shared with agents-report. */
export function addExportOptions(command: Command, what: string): Command {
  return addClientOptions(command)
    .option('--from <date>', 'inclusive start: YYYY-MM-DD or an ISO 8601 time (default: the beginning)')
    .option(
      '--to <date>',
      "exclusive end: YYYY-MM-DD or an ISO 8601 time (default: now); the dashboard's To, which it includes, is the day before",
    )
    .addOption(new Option('--json', `print one JSON object with every ${what}`).conflicts('csv'))
    .addOption(new Option('--csv', `print CSV (RFC 4180, header row) with every ${what}`).conflicts('json'));
}

export function exportRange(flags: ExportFlags) {
  return {
    ...(flags.from === undefined ? {} : { dateFrom: flags.from }),
    ...(flags.to === undefined ? {} : { dateTo: flags.to }),
  };
}

export const EXPORT_ENVIRONMENT_HELP = `\nServer, key and project come from --url, --key and --project, else:\n${Object.entries(
  CLIENT_VARIABLES,
)
  .map(([name, text]) => `  ${name.padEnd(19)}${text}`)
  .join('\n')}\nA read key is enough. Dates are UTC; counts are kept per hour.`;

interface ViewsFlags extends ExportFlags {
  format?: ViewFormat;
}

export function registerViewsCommand(program: Command): void {
  addExportOptions(
    program.command('views').description('page views per page, human and AI, over a date range (every page)'),
    'page',
  )
    .addOption(
      new Option(
        '--format <format>',
        'count only the views served in this format (pages without any are not listed)',
      ).choices(VIEW_FORMATS),
    )
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\n--json prints {"totals":{"human","ai","total"},"views":[{"path","human","ai","total"},...]}\n` +
        'with the rows of every page, ordered by total descending, then path.\n\nExamples:\n' +
        '  docwright views --from 2026-01-01 --to 2026-02-01\n' +
        "  docwright views --json | jq '.views[:10]'\n" +
        '  docwright views --format markdown   # the pages agents read as Markdown\n' +
        '  docwright views --from 2026-01-01 --to 2026-02-01 --csv > views-january.csv',
    )
    .action(async (flags: ViewsFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        const options = {
          ...exportRange(flags),
          ...(flags.format === undefined ? {} : { format: flags.format }),
        };
        if (flags.csv) {
          process.stdout.write(await client.viewsCsv(projectId, options));
          return;
        }
        const report = await client.viewsReport(projectId, options);
        if (flags.json) printJson({ totals: report.totals, views: report.views });
        else print(renderViews(report, flags.format));
      }),
    );
}

// `docwright visitors`: the distinct-visitors export (approximate distinct human and AI visitors
// per page) through the API, every page of it, as a table, one JSON object, or CSV.
import type { Command } from 'commander';
import { clientSettings, runClientCommand } from './client-options.ts';
import { renderVisitors } from './client-render.ts';
import { print, printJson } from './output.ts';
import { addExportOptions, EXPORT_ENVIRONMENT_HELP, type ExportFlags, exportRange } from './views-command.ts';

export function registerVisitorsCommand(program: Command): void {
  addExportOptions(
    program
      .command('visitors')
      .description('approximate distinct visitors per page, human and AI, over a date range (every page)'),
    'page',
  )
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\n--json prints {"totals":{"human","ai","total"},"visitors":[{"path","human","ai","total"},...]}\n` +
        'with the rows of every page, ordered by total descending, then path. total is the union of\n' +
        'human and AI visitors; a visitor id changes every UTC day (docs/analytics-visitors.md).\n\nExamples:\n' +
        '  docwright visitors --from 2026-01-01 --to 2026-02-01\n' +
        '  docwright visitors --from 2026-01-01 --to 2026-02-01 --csv > visitors-january.csv',
    )
    .action(async (flags: ExportFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        if (flags.csv) {
          process.stdout.write(await client.visitorsCsv(projectId, exportRange(flags)));
          return;
        }
        const report = await client.visitorsReport(projectId, exportRange(flags));
        if (flags.json) printJson({ totals: report.totals, visitors: report.visitors });
        else print(renderVisitors(report));
      }),
    );
}

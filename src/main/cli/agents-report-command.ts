// `docwright agents-report`: AI-agent views per agent (operator, category, verified or only
// claimed) through the API's agents export, every page of it.
import type { Command } from 'commander';
import { clientSettings, runClientCommand } from './client-options.ts';
import { renderAgents } from './client-render.ts';
import { print, printJson } from './output.ts';
import { addExportOptions, EXPORT_ENVIRONMENT_HELP, type ExportFlags, exportRange } from './views-command.ts';

export function registerAgentsReportCommand(program: Command): void {
  addExportOptions(
    program
      .command('agents-report')
      .description('AI-agent views per agent, verified and unverified, over a date range (from the API)'),
    'agent',
  )
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\n--json prints {"totals":{"verified","unverified","total"},"agents":[{"agent","operator",\n` +
        '"category","verified","unverified","total"},...]} with the rows of every page.\n' +
        '(docwright agents list shows the agent list itself, without counts.)\n\nExamples:\n' +
        '  docwright agents-report --from 2026-01-01\n' +
        '  docwright agents-report --csv > agents.csv',
    )
    .action(async (flags: ExportFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        if (flags.csv) {
          process.stdout.write(await client.agentsCsv(projectId, exportRange(flags)));
          return;
        }
        const report = await client.agentsReport(projectId, exportRange(flags));
        if (flags.json) printJson({ totals: report.totals, agents: report.agents });
        else print(renderAgents(report));
      }),
    );
}

// `docwright agents-report`: AI-agent views per agent (operator, category, verified or only
// claimed, by format) through the API's agents export, every page of it; and `docwright
// mcp-tools`: the MCP calls export.
import { type Command, Option } from 'commander';
import { VIEW_FORMATS, type ViewFormat } from '../../contract/index.ts';
import { clientSettings, runClientCommand } from './client-options.ts';
import { renderAgents, renderMcpTools } from './client-render.ts';
import { print, printJson } from './output.ts';
import { addExportOptions, EXPORT_ENVIRONMENT_HELP, type ExportFlags, exportRange } from './views-command.ts';

interface AgentsReportFlags extends ExportFlags {
  format?: ViewFormat;
  split?: boolean;
}

export function registerAgentsReportCommand(program: Command): void {
  addExportOptions(
    program
      .command('agents-report')
      .description('AI-agent views per agent, verified and unverified, over a date range (from the API)'),
    'agent',
  )
    .addOption(
      new Option('--format <format>', 'count only the views served in this format').choices(VIEW_FORMATS),
    )
    .option('--split', 'add the views per format (html, markdown, llms, mcp) to the totals and every agent')
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\n--json prints {"totals":{"verified","unverified","total"},"agents":[{"agent","operator",\n` +
        '"category","verified","unverified","total"},...]} with the rows of every page.\n' +
        '(docwright agents list shows the agent list itself, without counts.)\n\nExamples:\n' +
        '  docwright agents-report --from 2026-01-01\n' +
        '  docwright agents-report --format markdown --split\n' +
        '  docwright agents-report --csv > agents.csv',
    )
    .action(async (flags: AgentsReportFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        const options = {
          ...exportRange(flags),
          ...(flags.format === undefined ? {} : { format: flags.format }),
          ...(flags.split ? { split: 'format' as const } : {}),
        };
        if (flags.csv) {
          process.stdout.write(await client.agentsCsv(projectId, options));
          return;
        }
        const report = await client.agentsReport(projectId, options);
        if (flags.json) printJson({ totals: report.totals, agents: report.agents });
        else print(renderAgents(report, flags.format));
      }),
    );
}

export function registerMcpToolsCommand(program: Command): void {
  addExportOptions(
    program
      .command('mcp-tools')
      .description("calls to the docs site's MCP server per tool, method and client, over a date range"),
    'row',
  )
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\n--json prints {"totals":{"calls"},"tools":[...],"clients":[...],"calls":[{"tool","method",\n` +
        '"clientName","clientVersion","calls"},...]} with the rows of every page.\n' +
        'MCP calls are sent to the ingest API as records of type mcp (docs/analytics-formats.md).\n\nExamples:\n' +
        '  docwright mcp-tools --from 2026-01-01\n' +
        '  docwright mcp-tools --csv > mcp-tools.csv',
    )
    .action(async (flags: ExportFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        if (flags.csv) {
          process.stdout.write(await client.mcpToolsCsv(projectId, exportRange(flags)));
          return;
        }
        const report = await client.mcpToolsReport(projectId, exportRange(flags));
        if (flags.json)
          printJson({
            totals: report.totals,
            tools: report.tools,
            clients: report.clients,
            calls: report.calls,
          });
        else print(renderMcpTools(report));
      }),
    );
}

// `docwright usage`: what the project's agent jobs cost, per UTC day, model or job, through the
// API, as a table, one JSON object, or CSV (docs/cost-and-budgets.md).

import type { Command } from 'commander';
import { Option } from 'commander';
import type { UsageReport } from '../../sdk/index.ts';
import { clientSettings, runClientCommand } from './client-options.ts';
import { print, printJson, table } from './output.ts';
import { addExportOptions, EXPORT_ENVIRONMENT_HELP, type ExportFlags, exportRange } from './views-command.ts';

interface UsageFlags extends ExportFlags {
  groupBy?: 'day' | 'model' | 'job';
}

const usd = (value: number | null) => (value === null ? '-' : `$${value.toFixed(4)}`);

export function renderUsage(report: UsageReport): string {
  const { totals, budget } = report;
  const spent = `This month (${budget.month}): ${usd(budget.spentUsd)} spent${
    budget.monthlyBudgetUsd === null ? ', no monthly budget' : ` of ${usd(budget.monthlyBudgetUsd)}`
  }${budget.jobCostCapUsd === null ? '' : `; cap per job ${usd(budget.jobCostCapUsd)}`}.`;
  const head = `Agent jobs from ${report.range.from ?? 'the beginning'} to ${report.range.to ?? 'now'}: ${usd(totals.costUsd)} for ${totals.calls} model calls${
    totals.unpricedCalls > 0 ? ` (${totals.unpricedCalls} without a price, not counted)` : ''
  }.\n${spent}`;
  if (report.rows.length === 0) return `${head}\nNo model calls in this range.`;
  const headers = [
    report.groupBy.toUpperCase(),
    'CALLS',
    'INPUT',
    'CACHE READ',
    'CACHE WRITE',
    'OUTPUT',
    'COST',
  ];
  const rows = report.rows.map((r) => [
    r.key,
    String(r.calls),
    String(r.inputTokens),
    String(r.cacheReadTokens),
    String(r.cacheWriteTokens),
    String(r.outputTokens),
    usd(r.costUsd),
  ]);
  return `${head}\n\n${table(headers, rows)}`;
}

export function registerUsageCommand(program: Command): void {
  addExportOptions(
    program.command('usage').description('what agent jobs cost, per day, model or job, over a date range'),
    'row',
  )
    .addOption(
      new Option('--group-by <group>', 'one row per UTC day, model or job')
        .choices(['day', 'model', 'job'])
        .default('day'),
    )
    .addHelpText(
      'after',
      `${EXPORT_ENVIRONMENT_HELP}\n\nExamples:\n  docwright usage --from 2026-11-01\n  docwright usage --group-by model --json\n  docwright usage --group-by job --csv > usage.csv`,
    )
    .action(async (flags: UsageFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = clientSettings(flags, process.env);
        const options = { ...exportRange(flags), ...(flags.groupBy ? { groupBy: flags.groupBy } : {}) };
        if (flags.csv) {
          process.stdout.write(await client.usageCsv(projectId, options));
          return;
        }
        const report = await client.usage(projectId, options);
        if (flags.json) printJson(report);
        else print(renderUsage(report));
      }),
    );
}

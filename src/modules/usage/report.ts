// The usage export: a project's model calls in a date range, summed per UTC day, model or job,
// with the budget as it stands. The date rules are the analytics exports' (whole UTC hours).
import type { UsageGroup, UsageQuery, UsageReport } from '../../contract/index.ts';
import type { Queryable } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from '../analytics/index.ts';
import { roundUsd } from './price-table.ts';
import { selectSpend, selectUsageSums, type UsageSumRow } from './queries.ts';

type Sums = Omit<UsageReport['rows'][number], 'key'>;

function sumsOf(row: UsageSumRow): Sums {
  return {
    calls: row.calls,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costUsd: roundUsd(row.cost_usd),
    unpricedCalls: row.unpriced_calls,
  };
}

function addSums(a: Sums, b: Sums): Sums {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: roundUsd(a.costUsd + b.costUsd),
    unpricedCalls: a.unpricedCalls + b.unpricedCalls,
  };
}

const ZERO: Sums = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  unpricedCalls: 0,
};

export async function exportUsage(db: Queryable, projectId: string, query: UsageQuery): Promise<UsageReport> {
  const groupBy: UsageGroup = query.groupBy ?? 'day';
  const range = resolveHourRange(query.dateFrom, query.dateTo);
  const rows = await selectUsageSums(db, {
    projectId,
    from: range.from === null ? null : new Date(range.from * 1000),
    to: range.to === null ? null : new Date(range.to * 1000),
    groupBy,
  });
  const spend = await selectSpend(db, projectId, null);
  const shown = rows.map((row) => ({ key: row.key, ...sumsOf(row) }));
  return {
    groupBy,
    totals: shown.reduce<Sums>((total, row) => addSums(total, row), ZERO),
    rows: shown,
    range: reportedRange(range),
    budget: {
      month: spend.month.slice(0, 7),
      spentUsd: roundUsd(spend.month_spent_usd),
      monthlyBudgetUsd: spend.monthly_budget_usd,
      jobCostCapUsd: spend.job_cost_cap_usd,
    },
  };
}

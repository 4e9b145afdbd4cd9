// The budget checks when a job or a follow-up is asked for: refused with budget_exhausted (402)
// once the project's month is spent, or, for a follow-up, once the job's own cap is. 402 and not
// 429: waiting a few seconds and retrying, which clients do on 429, cannot help; a person raising
// the budget or the next UTC month can (docs/cost-and-budgets.md).
import type { Queryable } from '../../db/database.ts';
import { usageErrors } from './errors.ts';
import { selectSpend } from './queries.ts';

/** Thresholds of the monthly budget that send an alert, in percent. */
export const ALERT_THRESHOLDS = [80, 100] as const;

/** Dollars for messages: cents, or more digits for amounts under a cent. */
export function formatUsd(value: number): string {
  return value >= 0.01 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}

/** The first instant of the next UTC month after the month starting on `month` (YYYY-MM-01). */
export function nextMonthStart(month: string): string {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, mon, 1)).toISOString();
}

/**
 * Throws budget_exhausted when the project's monthly budget is spent; with jobId (a follow-up),
 * also when that job's cost cap is.
 */
export async function checkBudget(
  db: Queryable,
  projectId: string,
  jobId: string | null = null,
): Promise<void> {
  const spend = await selectSpend(db, projectId, jobId);
  const budget = spend.monthly_budget_usd;
  if (budget !== null && spend.month_spent_usd >= budget) {
    throw usageErrors.budget_exhausted(
      `The project's monthly budget (monthlyBudgetUsd ${formatUsd(budget)}) is spent: ${formatUsd(spend.month_spent_usd)} this month. Raise it, or wait for the month to end (${nextMonthStart(spend.month)}).`,
    );
  }
  const cap = spend.job_cost_cap_usd;
  if (jobId !== null && cap !== null && spend.job_spent_usd >= cap) {
    throw usageErrors.budget_exhausted(
      `The job has spent ${formatUsd(spend.job_spent_usd)}, its cost cap (jobCostCapUsd ${formatUsd(cap)}): it takes no follow-up until the cap is raised.`,
    );
  }
}

// Each model call of a job, priced when it ends and counted against the project's budget: the
// call is stored with its cost, the spend is read back, and the answer says whether the run must
// stop (the job's cost cap or the month's budget reached) and which budget alerts it set off.
import type { Database, Queryable } from '../../db/database.ts';
import { ALERT_THRESHOLDS, formatUsd } from './budget.ts';
import { costOf, type ModelCallTokens, type PriceTable, roundUsd } from './price-table.ts';
import { insertBudgetAlert, insertModelCall, lockProjectSpend, selectSpend } from './queries.ts';

/** Why spending stops a run: the job's own cap, or the project's month. */
export type SpendLimit = 'cost_cap' | 'monthly_budget';

export interface ModelCallUsage extends ModelCallTokens {
  /** provider:model, as the job records it. */
  model: string;
}

export interface BudgetAlert {
  /** 80 or 100: the percentage of the monthly budget now spent or passed. */
  threshold: number;
  /** The UTC month, YYYY-MM. */
  month: string;
  spentUsd: number;
  budgetUsd: number;
}

export interface ModelCallCharge {
  /** What the call cost; null when the model has no price. */
  costUsd: number | null;
  /** Set when the run must stop before its next step. */
  stop: SpendLimit | null;
  /** Says which limit and how much, for the job's failure message. */
  stopMessage: string | null;
}

export interface ChargeInput {
  projectId: string;
  jobId: string;
  promptSeq: number;
  call: ModelCallUsage;
  /**
   * Writes the alert's job event, in the same transaction as the alert's record: an alert is
   * sent once, and never lost.
   */
  onAlert(tx: Queryable, alert: BudgetAlert): Promise<void>;
}

export async function chargeModelCall(
  db: Database,
  prices: PriceTable,
  input: ChargeInput,
): Promise<ModelCallCharge> {
  const { call } = input;
  return db.transaction(async (tx) => {
    await lockProjectSpend(tx, input.projectId);
    const before = await selectSpend(tx, input.projectId, input.jobId);
    const price = prices.withOverrides(before.model_prices ?? undefined).priceOf(call.model);
    const costUsd = price === null ? null : costOf(price, call);
    await insertModelCall(tx, {
      projectId: input.projectId,
      jobId: input.jobId,
      promptSeq: input.promptSeq,
      model: call.model,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      cacheReadTokens: call.cacheReadTokens,
      cacheWriteTokens: call.cacheWriteTokens,
      costUsd,
    });
    const monthSpent = roundUsd(before.month_spent_usd + (costUsd ?? 0));
    const jobSpent = roundUsd(before.job_spent_usd + (costUsd ?? 0));
    const budget = before.monthly_budget_usd;
    if (budget !== null && costUsd !== null && costUsd > 0) {
      for (const threshold of ALERT_THRESHOLDS) {
        if (monthSpent < (budget * threshold) / 100) continue;
        const alert = { threshold, month: before.month.slice(0, 7), spentUsd: monthSpent, budgetUsd: budget };
        const fresh = await insertBudgetAlert(tx, {
          projectId: input.projectId,
          month: before.month,
          threshold,
          jobId: input.jobId,
          spentUsd: monthSpent,
          budgetUsd: budget,
        });
        if (fresh) await input.onAlert(tx, alert);
      }
    }
    const cap = before.job_cost_cap_usd;
    if (cap !== null && jobSpent >= cap) {
      return {
        costUsd,
        stop: 'cost_cap',
        stopMessage: `The job reached its cost cap (jobCostCapUsd ${formatUsd(cap)}): it has spent ${formatUsd(jobSpent)}.`,
      };
    }
    if (budget !== null && monthSpent >= budget) {
      return {
        costUsd,
        stop: 'monthly_budget',
        stopMessage: `The project's monthly budget (monthlyBudgetUsd ${formatUsd(budget)}) is spent: ${formatUsd(monthSpent)} this month.`,
      };
    }
    return { costUsd, stop: null, stopMessage: null };
  });
}

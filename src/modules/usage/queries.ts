// SQL for model calls, spend and budget alerts (db/migrations/0016); one function per statement.
// Sums are read as float8: JavaScript numbers, exact to the stored 10 decimals for any sum a
// project reaches.
import type { Queryable } from '../../db/database.ts';
import type { ModelPrice } from '../projects/index.ts';

export interface SpendRow {
  /** The project's settings now: budgets and price overrides may change while a job runs. */
  monthly_budget_usd: number | null;
  job_cost_cap_usd: number | null;
  model_prices: ModelPrice[] | null;
  /** The first day of the current UTC month, YYYY-MM-DD. */
  month: string;
  month_spent_usd: number;
  job_spent_usd: number;
}

/**
 * Serialises the charging of one project's calls: each reads the month's spend after the calls
 * before it committed, so concurrent jobs cannot each see the month below a threshold.
 */
export async function lockProjectSpend(db: Queryable, projectId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('docwright.spend:' || $1))", [projectId]);
}

/** The project's budget settings and what it (and the job, when named) spent this UTC month. */
export async function selectSpend(db: Queryable, projectId: string, jobId: string | null): Promise<SpendRow> {
  const rows = await db.query<SpendRow>(
    `WITH month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AS start)
     SELECT (p.settings ->> 'monthlyBudgetUsd')::float8 AS monthly_budget_usd,
            (p.settings ->> 'jobCostCapUsd')::float8 AS job_cost_cap_usd,
            p.settings -> 'modelPrices' AS model_prices,
            to_char((SELECT start FROM month), 'YYYY-MM-DD') AS month,
            coalesce((SELECT sum(c.cost_usd) FROM model_calls c
                       WHERE c.project_id = p.id
                         AND c.created_at >= (SELECT start FROM month) AT TIME ZONE 'UTC'), 0)::float8 AS month_spent_usd,
            coalesce((SELECT sum(c.cost_usd) FROM model_calls c WHERE c.job_id = $2), 0)::float8 AS job_spent_usd
       FROM projects p WHERE p.id = $1`,
    [projectId, jobId],
  );
  return (
    rows[0] ?? {
      monthly_budget_usd: null,
      job_cost_cap_usd: null,
      model_prices: null,
      month: new Date().toISOString().slice(0, 8).concat('01'),
      month_spent_usd: 0,
      job_spent_usd: 0,
    }
  );
}

export async function insertModelCall(
  db: Queryable,
  c: {
    projectId: string;
    jobId: string;
    promptSeq: number;
    model: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    costUsd: number | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO model_calls (project_id, job_id, prompt_seq, model, input_tokens, output_tokens,
                              cache_read_tokens, cache_write_tokens, cost_usd)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      c.projectId,
      c.jobId,
      c.promptSeq,
      c.model,
      c.inputTokens,
      c.outputTokens,
      c.cacheReadTokens,
      c.cacheWriteTokens,
      c.costUsd,
    ],
  );
}

/** Records that a threshold was crossed; false when it already was this month (no second alert). */
export async function insertBudgetAlert(
  db: Queryable,
  a: {
    projectId: string;
    month: string;
    threshold: number;
    jobId: string;
    spentUsd: number;
    budgetUsd: number;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO budget_alerts (project_id, month, threshold, job_id, spent_usd, budget_usd)
     VALUES ($1, $2::date, $3, $4, $5, $6)
     ON CONFLICT (project_id, month, threshold) DO NOTHING
     RETURNING threshold`,
    [a.projectId, a.month, a.threshold, a.jobId, a.spentUsd, a.budgetUsd],
  );
  return rows.length > 0;
}

export interface BudgetAlertRow {
  month: string;
  threshold: number;
  job_id: string | null;
  spent_usd: number;
  budget_usd: number;
  created_at: Date;
}

/** The alerts of the current UTC month, lowest threshold first (the dashboard's banner). */
export async function selectMonthAlerts(db: Queryable, projectId: string): Promise<BudgetAlertRow[]> {
  return db.query<BudgetAlertRow>(
    `SELECT to_char(month, 'YYYY-MM-DD') AS month, threshold, job_id, spent_usd::float8 AS spent_usd,
            budget_usd::float8 AS budget_usd, created_at
       FROM budget_alerts
      WHERE project_id = $1 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date
      ORDER BY threshold`,
    [projectId],
  );
}

export interface UsageSumRow {
  key: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  unpriced_calls: number;
}

const GROUP_KEYS = {
  day: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  model: 'model',
  job: 'job_id',
} as const;

const GROUP_ORDER = {
  day: 'key',
  model: 'cost_usd DESC, key',
  job: 'cost_usd DESC, key',
} as const;

/** The calls of a project in [from, to) (null: unbounded), summed per day, model or job. */
export async function selectUsageSums(
  db: Queryable,
  q: { projectId: string; from: Date | null; to: Date | null; groupBy: keyof typeof GROUP_KEYS },
): Promise<UsageSumRow[]> {
  // The key expression and order come from the fixed tables above, never from the request.
  return db.query<UsageSumRow>(
    `SELECT ${GROUP_KEYS[q.groupBy]} AS key,
            count(*)::bigint AS calls,
            sum(input_tokens)::bigint AS input_tokens,
            sum(output_tokens)::bigint AS output_tokens,
            sum(cache_read_tokens)::bigint AS cache_read_tokens,
            sum(cache_write_tokens)::bigint AS cache_write_tokens,
            coalesce(sum(cost_usd), 0)::float8 AS cost_usd,
            count(*) FILTER (WHERE cost_usd IS NULL)::bigint AS unpriced_calls
       FROM model_calls
      WHERE project_id = $1
        AND ($2::timestamptz IS NULL OR created_at >= $2)
        AND ($3::timestamptz IS NULL OR created_at < $3)
      GROUP BY 1
      ORDER BY ${GROUP_ORDER[q.groupBy]}`,
    [q.projectId, q.from, q.to],
  );
}

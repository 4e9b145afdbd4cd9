// The JSON a webhook carries. The job is shown exactly as the API shows it (toJobView), taken
// from the snapshot of its row stored with the delivery: a retry an hour later still describes
// the job as it was when the event happened.
import type { JobView } from '../../contract/index.ts';
import type { JobRow } from '../jobs/index.ts';
import { toJobView } from '../jobs/index.ts';
import type { DeliveryRow, WebhookType } from './queries.ts';

export interface WebhookPayload {
  /** The delivery id: the same on every retry, so receivers can drop duplicates. */
  id: string;
  type: WebhookType;
  /** When the event happened. */
  createdAt: string;
  projectId: string;
  job: JobView;
  /** pull_request.opened only: the job's prLink is set when the job ends, this is set now. */
  pullRequest?: { url: string; number: number | null };
  /**
   * budget.warning (80 %) and budget.exhausted (100 %) only: the month's spend when a call of
   * `job` crossed the threshold. Sent once per project, month and threshold.
   */
  budget?: { threshold: number; month: string; spentUsd: number; budgetUsd: number };
}

export function webhookPayload(row: DeliveryRow): WebhookPayload {
  const payload: WebhookPayload = {
    id: row.id,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    projectId: row.project_id,
    job: toJobView(reviveJobRow(row.job_snapshot)),
  };
  if (row.type === 'pull_request.opened') {
    const data = row.event_data;
    payload.pullRequest = {
      url: String(data.url),
      number: typeof data.number === 'number' ? data.number : null,
    };
  }
  if (row.type === 'budget.warning' || row.type === 'budget.exhausted') {
    const data = row.event_data;
    payload.budget = {
      threshold: Number(data.threshold),
      month: String(data.month),
      spentUsd: Number(data.spentUsd),
      budgetUsd: Number(data.budgetUsd),
    };
  }
  return payload;
}

/** to_jsonb writes timestamps as text; the job view wants Dates where the row has them. */
function reviveJobRow(snapshot: Record<string, unknown>): JobRow {
  const row: Record<string, unknown> = { ...snapshot };
  for (const [key, value] of Object.entries(row)) {
    if (key.endsWith('_at') && typeof value === 'string') row[key] = new Date(value);
  }
  return row as unknown as JobRow;
}

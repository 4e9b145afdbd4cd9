// SQL for webhook deliveries; one function per statement. Rows are created by the job_events
// trigger in db/migrations/0005 (same transaction as the job's state change); the dispatcher
// claims, records and finishes them here.
import type { Queryable } from '../../db/database.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export type WebhookType =
  | 'job.completed'
  | 'job.failed'
  | 'job.archived'
  | 'pull_request.opened'
  | 'budget.warning'
  | 'budget.exhausted';

export interface DeliveryRow {
  id: string;
  project_id: string;
  job_id: string;
  event_id: number;
  type: WebhookType;
  /** The jobs row at the time of the event, as to_jsonb wrote it. */
  job_snapshot: Record<string, unknown>;
  event_data: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  last_response_snippet: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

/**
 * Takes up to limit due deliveries for one attempt each: counts the attempt and pushes
 * next_attempt_at forward by leaseMs, so nobody else takes them meanwhile and a dispatcher that
 * dies leaves them due again afterwards. SKIP LOCKED lets dispatchers in many processes claim
 * at once without waiting on each other.
 */
export async function claimDueDeliveries(
  db: Queryable,
  limit: number,
  leaseMs: number,
): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, last_attempt_at = now(),
            next_attempt_at = now() + $2 * interval '1 millisecond'
      WHERE id IN (
        SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at, id
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [limit, leaseMs],
  );
}

/**
 * Writes the outcome of attempt number `attempt`. Only that attempt's claim may write it: if the
 * lease ran out and another dispatcher took the delivery, this returns false and writes nothing.
 */
export async function recordAttempt(
  db: Queryable,
  r: {
    id: string;
    attempt: number;
    outcome: 'delivered' | 'retry' | 'failed';
    /** For retry: when to try again. */
    retryInMs: number | null;
    responseStatus: number | null;
    error: string | null;
    snippet: string | null;
  },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_deliveries
        SET status = CASE $3 WHEN 'retry' THEN 'pending' ELSE $3 END,
            next_attempt_at = CASE $3 WHEN 'retry' THEN now() + $4 * interval '1 millisecond' END,
            delivered_at = CASE $3 WHEN 'delivered' THEN now() END,
            last_response_status = $5, last_error = $6, last_response_snippet = $7
      WHERE id = $1 AND attempts = $2 AND status = 'pending'
      RETURNING id`,
    [r.id, r.attempt, r.outcome, r.retryInMs, r.responseStatus, r.error, r.snippet],
  );
  return rows.length > 0;
}

/** Gives a claimed delivery back untried (dispatcher stopping): due now, the try not counted. */
export async function releaseClaim(db: Queryable, id: string, attempt: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = now()
      WHERE id = $1 AND attempts = $2 AND status = 'pending'
      RETURNING id`,
    [id, attempt],
  );
  return rows.length > 0;
}

/** When the next pending delivery falls due (null when none is pending). */
export async function selectNextDueTime(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ next: Date | null }>(
    "SELECT min(next_attempt_at) AS next FROM webhook_deliveries WHERE status = 'pending'",
  );
  return rows[0]?.next ?? null;
}

/** The project's deliveries, newest first (for operators; the dispatcher does not need it). */
export async function selectProjectDeliveries(
  db: Queryable,
  projectId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE project_id = $1
      ORDER BY created_at DESC, id DESC
      LIMIT $2`,
    [projectId, limit],
  );
}

/** The project's webhook URL now (the setting may change while a delivery waits). */
export async function selectWebhookUrl(db: Queryable, projectId: string): Promise<string | null> {
  const rows = await db.query<{ url: string | null }>(
    "SELECT nullif(settings ->> 'webhookUrl', '') AS url FROM projects WHERE id = $1",
    [projectId],
  );
  return rows[0]?.url ?? null;
}

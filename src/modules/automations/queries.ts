// SQL for automations, their runs, the keys of the events that made them and the code hosts'
// delivery ids; one function per statement. Times that decide what is due are passed in (the
// worker's clock), so tests can move time.
import type { AutomationLimits, AutomationTrigger } from '../../contract/index.ts';
import type { Queryable } from '../../db/database.ts';

export interface AutomationRow {
  id: string;
  project_id: string;
  name: string;
  enabled: boolean;
  trigger: AutomationTrigger;
  prompt_template: string;
  limits: AutomationLimits;
  trigger_secret_hash: string | null;
  next_run_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type RunStatus = 'queued' | 'started' | 'skipped';

export interface RunRow {
  id: string;
  automation_id: string;
  project_id: string;
  trigger_type: AutomationTrigger['type'];
  status: RunStatus;
  context: RunContext;
  job_id: string | null;
  followed_up: boolean;
  skip_reason: string | null;
  due_at: Date;
  lease_expires_at: Date | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
}

/** What a run's prompt is made from: the events that fired it (one, or several batched). */
export interface RunContext {
  events: Record<string, unknown>[];
}

export async function insertAutomation(
  db: Queryable,
  a: {
    id: string;
    projectId: string;
    name: string;
    enabled: boolean;
    trigger: AutomationTrigger;
    promptTemplate: string;
    limits: AutomationLimits;
    triggerSecretHash: string | null;
    nextRunAt: Date | null;
  },
): Promise<AutomationRow> {
  const rows = await db.query<AutomationRow>(
    `INSERT INTO automations (id, project_id, name, enabled, trigger, prompt_template, limits, trigger_secret_hash, next_run_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING *`,
    [
      a.id,
      a.projectId,
      a.name,
      a.enabled,
      JSON.stringify(a.trigger),
      a.promptTemplate,
      JSON.stringify(a.limits),
      a.triggerSecretHash,
      a.nextRunAt,
    ],
  );
  return rows[0]!;
}

export async function updateAutomation(
  db: Queryable,
  a: {
    id: string;
    projectId: string;
    name: string;
    enabled: boolean;
    trigger: AutomationTrigger;
    promptTemplate: string;
    limits: AutomationLimits;
    triggerSecretHash: string | null;
    nextRunAt: Date | null;
  },
): Promise<AutomationRow | null> {
  const rows = await db.query<AutomationRow>(
    `UPDATE automations
        SET name = $3, enabled = $4, trigger = $5, prompt_template = $6, limits = $7,
            trigger_secret_hash = $8, next_run_at = $9, updated_at = now()
      WHERE project_id = $1 AND id = $2
      RETURNING *`,
    [
      a.projectId,
      a.id,
      a.name,
      a.enabled,
      JSON.stringify(a.trigger),
      a.promptTemplate,
      JSON.stringify(a.limits),
      a.triggerSecretHash,
      a.nextRunAt,
    ],
  );
  return rows[0] ?? null;
}

export async function selectAutomation(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<AutomationRow | null> {
  const rows = await db.query<AutomationRow>('SELECT * FROM automations WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
  ]);
  return rows[0] ?? null;
}

/** The automation, locked until the transaction ends (a run's checks and its job). */
export async function selectAutomationForUpdate(db: Queryable, id: string): Promise<AutomationRow | null> {
  const rows = await db.query<AutomationRow>('SELECT * FROM automations WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ?? null;
}

export async function selectAutomations(db: Queryable, projectId: string): Promise<AutomationRow[]> {
  return db.query<AutomationRow>('SELECT * FROM automations WHERE project_id = $1 ORDER BY created_at, id', [
    projectId,
  ]);
}

/** The project's enabled code_change automations on this host. */
export async function selectCodeChangeAutomations(
  db: Queryable,
  projectId: string,
  host: string,
): Promise<AutomationRow[]> {
  return db.query<AutomationRow>(
    `SELECT * FROM automations
      WHERE project_id = $1 AND enabled AND trigger ->> 'type' = 'code_change' AND trigger ->> 'host' = $2
      ORDER BY created_at, id`,
    [projectId, host],
  );
}

export async function deleteAutomation(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM automations WHERE project_id = $1 AND id = $2 RETURNING id', [
    projectId,
    id,
  ]);
  return rows.length > 0;
}

/**
 * Schedules due at `now`: each is moved to its next time in the same statement that hands it
 * out, so two schedulers never fire one due time twice (SKIP LOCKED). The caller computes the
 * next time from `now`, so a downtime yields one run, not one per missed time.
 */
export async function selectDueSchedules(db: Queryable, now: Date, limit: number): Promise<AutomationRow[]> {
  return db.query<AutomationRow>(
    `SELECT * FROM automations
      WHERE next_run_at IS NOT NULL AND next_run_at <= $1 AND enabled
      ORDER BY next_run_at, id
      LIMIT $2
      FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
}

export async function updateNextRunAt(db: Queryable, id: string, next: Date | null): Promise<void> {
  await db.query('UPDATE automations SET next_run_at = $2 WHERE id = $1', [id, next]);
}

/** The earliest schedule due time (null when no schedule is set). */
export async function selectNextScheduleTime(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ next: Date | null }>(
    'SELECT min(next_run_at) AS next FROM automations WHERE next_run_at IS NOT NULL AND enabled',
  );
  return rows[0]?.next ?? null;
}

export async function insertRun(
  db: Queryable,
  r: {
    id: string;
    automationId: string;
    projectId: string;
    triggerType: AutomationTrigger['type'];
    context: RunContext;
    dueAt: Date;
  },
): Promise<RunRow> {
  const rows = await db.query<RunRow>(
    `INSERT INTO automation_runs (id, automation_id, project_id, trigger_type, status, context, due_at)
     VALUES ($1, $2, $3, $4, 'queued', $5, $6)
     RETURNING *`,
    [r.id, r.automationId, r.projectId, r.triggerType, JSON.stringify(r.context), r.dueAt],
  );
  return rows[0]!;
}

/**
 * Records that `key` made run `runId`; false when the key had already made a run (a redelivery
 * or the same merge told twice), in which case the caller queues nothing.
 */
export async function insertEventKey(
  db: Queryable,
  automationId: string,
  key: string,
  runId: string,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO automation_event_keys (automation_id, key, run_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING key`,
    [automationId, key, runId],
  );
  return rows.length > 0;
}

/** The automation's run still gathering events in its quiet period (not yet due), locked. */
export async function selectGatheringRun(
  db: Queryable,
  automationId: string,
  now: Date,
): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `SELECT * FROM automation_runs
      WHERE automation_id = $1 AND status = 'queued' AND due_at > $2 AND lease_expires_at IS NULL
      ORDER BY created_at DESC LIMIT 1
      FOR UPDATE`,
    [automationId, now],
  );
  return rows[0] ?? null;
}

/** Adds an event to a gathering run and moves its due time to the end of the new quiet period. */
export async function appendRunEvent(
  db: Queryable,
  runId: string,
  event: Record<string, unknown>,
  dueAt: Date,
): Promise<void> {
  await db.query(
    `UPDATE automation_runs
        SET context = jsonb_set(context, '{events}', (context -> 'events') || jsonb_build_array($2::jsonb)),
            due_at = greatest(due_at, $3)
      WHERE id = $1`,
    [runId, JSON.stringify(event), dueAt],
  );
}

/** Wakes the automation workers (delivered at commit; on its own, at once and without a WAL flush). */
export async function notifyRunQueued(db: Queryable, runId: string): Promise<void> {
  await db.query("SELECT pg_notify('docwright_automations', $1)", [runId]);
}

/** Takes up to limit due runs with a lease; a dead worker's runs are due again when it ends. */
export async function claimDueRuns(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<RunRow[]> {
  return db.query<RunRow>(
    `UPDATE automation_runs
        SET attempts = attempts + 1, lease_expires_at = $1::timestamptz + $3 * interval '1 millisecond'
      WHERE id IN (
        SELECT id FROM automation_runs
         WHERE status = 'queued' AND due_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
         ORDER BY due_at, id
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now, limit, leaseMs],
  );
}

/** When the next queued run falls due (null when none is queued). */
export async function selectNextRunDueTime(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ next: Date | null }>(
    `SELECT min(greatest(due_at, coalesce(lease_expires_at, due_at))) AS next
       FROM automation_runs WHERE status = 'queued'`,
  );
  return rows[0]?.next ?? null;
}

/** The run, locked; null when another worker took it over after this one's lease ran out. */
export async function selectClaimedRunForUpdate(
  db: Queryable,
  id: string,
  attempts: number,
): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    "SELECT * FROM automation_runs WHERE id = $1 AND attempts = $2 AND status = 'queued' FOR UPDATE",
    [id, attempts],
  );
  return rows[0] ?? null;
}

export async function markRunStarted(
  db: Queryable,
  id: string,
  jobId: string,
  followedUp: boolean,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE automation_runs
        SET status = 'started', job_id = $2, followed_up = $3, started_at = $4, lease_expires_at = NULL
      WHERE id = $1`,
    [id, jobId, followedUp, now],
  );
}

export async function markRunSkipped(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE automation_runs
        SET status = 'skipped', skip_reason = $2, started_at = NULL, followed_up = false, lease_expires_at = NULL
      WHERE id = $1`,
    [id, reason],
  );
}

/** Puts a claimed run back, due at `dueAt` (the job it follows up is still running, a rate limit). */
export async function deferRun(db: Queryable, id: string, dueAt: Date): Promise<void> {
  await db.query(
    `UPDATE automation_runs SET due_at = $2, started_at = NULL, followed_up = false, lease_expires_at = NULL
      WHERE id = $1`,
    [id, dueAt],
  );
}

/**
 * Reserves the run's start in the transaction that checked the caps: a queued run with a
 * started_at is about to start its job (a new one unless followedUp), and counts against the
 * daily cap and the open pull requests of the other runs' decisions until it is started,
 * skipped or deferred.
 */
export async function reserveRunStart(
  db: Queryable,
  id: string,
  now: Date,
  followedUp: boolean,
): Promise<void> {
  await db.query('UPDATE automation_runs SET started_at = $2, followed_up = $3 WHERE id = $1', [
    id,
    now,
    followedUp,
  ]);
}

/** Runs of the automation, other than `exceptRunId`, that started (or are starting) a job since `since`: the daily cap. */
export async function countRunsStartedSince(
  db: Queryable,
  automationId: string,
  since: Date,
  exceptRunId: string,
): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM automation_runs
      WHERE automation_id = $1 AND status IN ('started', 'queued') AND started_at >= $2 AND id <> $3`,
    [automationId, since, exceptRunId],
  );
  return rows[0]!.count;
}

/** Other runs of the automation reserved to create a new job that they have not created yet. */
export async function countRunsStartingNewJobs(
  db: Queryable,
  automationId: string,
  exceptRunId: string,
): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM automation_runs
      WHERE automation_id = $1 AND status = 'queued' AND started_at IS NOT NULL AND NOT followed_up
        AND id <> $2`,
    [automationId, exceptRunId],
  );
  return rows[0]!.count;
}

/**
 * The automation's jobs that hold (or may soon hold) an open pull request: running, or ended with
 * a pull request and not archived. Newest first.
 */
export async function selectOpenJobs(
  db: Queryable,
  automationId: string,
): Promise<{ id: string; status: string; pr_link: string | null }[]> {
  return db.query(
    `SELECT DISTINCT ON (j.created_at, j.id) j.id, j.status, j.pr_link
       FROM automation_runs r JOIN jobs j ON j.id = r.job_id
      WHERE r.automation_id = $1
        AND (j.status = 'active' OR (j.status IN ('completed', 'failed') AND j.pr_link IS NOT NULL))
      ORDER BY j.created_at DESC, j.id DESC`,
    [automationId],
  );
}

/** Newest first; after = the id of the last run of the previous page. */
export async function selectRunPage(
  db: Queryable,
  q: { automationId: string; after: string | null; limit: number },
): Promise<RunRow[]> {
  return db.query<RunRow>(
    `SELECT r.* FROM automation_runs r
      WHERE r.automation_id = $1
        AND ($2::text IS NULL OR (r.created_at, r.id) < (SELECT c.created_at, c.id FROM automation_runs c WHERE c.id = $2))
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT $3`,
    [q.automationId, q.after, q.limit],
  );
}

export async function runExists(db: Queryable, automationId: string, id: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM automation_runs WHERE automation_id = $1 AND id = $2', [
    automationId,
    id,
  ]);
  return rows.length > 0;
}

export async function selectRun(db: Queryable, id: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>('SELECT * FROM automation_runs WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Records a code host's delivery id; false when it was seen before (a redelivery). */
export async function insertInboundDelivery(
  db: Queryable,
  projectId: string,
  host: string,
  deliveryId: string,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO automation_inbound_deliveries (project_id, host, delivery_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING delivery_id`,
    [projectId, host, deliveryId],
  );
  return rows.length > 0;
}

/** The run an event key made, or null when the key is new. */
export async function selectEventKeyRun(
  db: Queryable,
  automationId: string,
  key: string,
): Promise<string | null> {
  const rows = await db.query<{ run_id: string }>(
    'SELECT run_id FROM automation_event_keys WHERE automation_id = $1 AND key = $2',
    [automationId, key],
  );
  return rows[0]?.run_id ?? null;
}

export async function deleteRunRow(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM automation_runs WHERE id = $1', [id]);
}

/**
 * A code host's delivery in one statement (no transaction around it, one commit): records the
 * delivery id, then for each watching automation records the event key and queues its run. It
 * sends no NOTIFY: a transaction that notifies holds a cluster-wide lock through its commit's WAL
 * flush, so notifying commits flush one at a time (the caller wakes the workers after the commit,
 * notifyRunQueued). A delivery id seen before queues nothing;
 * a key seen before (the same merge under another delivery id) queues nothing for that
 * automation: a concurrent delivery of the same key waits for the other's commit, then finds the
 * key taken. The runs share one context (the event). `runIds` are fresh ids, one per automation.
 * Returns whether the delivery id was new (true when there is none) and the runs queued, in the
 * order of `automationIds`.
 */
export async function insertDeliveryRuns(
  db: Queryable,
  d: {
    projectId: string;
    host: string;
    deliveryId: string | null;
    automationIds: string[];
    keys: string[];
    runIds: string[];
    context: string;
    dueAt: Date;
  },
): Promise<{ fresh: boolean; runs: string[] }> {
  const rows = await db.query<{ fresh: boolean; runs: string[] }>(
    `WITH delivery AS (
       INSERT INTO automation_inbound_deliveries (project_id, host, delivery_id)
       SELECT $1, $2, $3::text WHERE $3::text IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING 1
     ), fresh AS (
       SELECT $3::text IS NULL OR EXISTS (SELECT 1 FROM delivery) AS ok
     ), wanted AS (
       SELECT w.automation_id, w.key, w.run_id, w.ord
         FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS w (automation_id, key, run_id, ord)
        WHERE (SELECT ok FROM fresh)
     ), keyed AS (
       INSERT INTO automation_event_keys (automation_id, key, run_id)
       SELECT automation_id, key, run_id FROM wanted
       ON CONFLICT DO NOTHING RETURNING automation_id, run_id
     ), queued AS (
       INSERT INTO automation_runs (id, automation_id, project_id, trigger_type, status, context, due_at)
       SELECT run_id, automation_id, $1, 'code_change', 'queued', $7::jsonb, $8 FROM keyed
       RETURNING id
     )
     SELECT (SELECT ok FROM fresh) AS fresh,
            ARRAY(SELECT w.run_id FROM wanted w JOIN queued q ON q.id = w.run_id ORDER BY w.ord) AS runs`,
    [d.projectId, d.host, d.deliveryId, d.automationIds, d.keys, d.runIds, d.context, d.dueAt],
  );
  return { fresh: rows[0]!.fresh, runs: rows[0]!.runs };
}

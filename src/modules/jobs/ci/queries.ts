// SQL for CI watches (db/migrations/0017_ci_watches.sql); one function per statement. A watcher
// holds a watch by its lease: every write after the claim names the lease it got and the commit
// it read, so a watch taken over (lease ran out) or restarted for a newer commit is not written.
import type { Queryable } from '../../../db/database.ts';

export type CiWatchState = 'watching' | 'passed' | 'failed' | 'timed_out' | 'stopped';
export type CiObserved = 'none' | 'pending' | 'error' | 'success' | 'failure';

export interface CiWatchRow {
  job_id: string;
  project_id: string;
  head_sha: string;
  pr_url: string;
  state: CiWatchState;
  observed: CiObserved;
  checks: { name: string; state: string; url: string | null }[];
  last_error: string | null;
  polls: number;
  follow_ups: number;
  outcome: string | null;
  started_at: Date;
  deadline_at: Date;
  next_poll_at: Date;
  ended_at: Date | null;
  lease_expires_at: Date | null;
}

/** The claim a watcher holds: the lease it was given, for the commit it was given. */
export interface CiLease {
  jobId: string;
  headSha: string;
  leaseExpiresAt: Date;
}

/**
 * Starts (or restarts) the job's watch for a pushed commit, polled at once. A watch of the same
 * commit that has already ended stays ended (a follow-up that pushed nothing new must not fail
 * the same checks twice). Keeps the count of follow-ups sent. Returns the watch when it started.
 */
export async function upsertWatch(
  db: Queryable,
  w: { jobId: string; projectId: string; headSha: string; prUrl: string; watchMinutes: number },
): Promise<CiWatchRow | null> {
  const rows = await db.query<CiWatchRow>(
    `INSERT INTO ci_watches AS w
            (job_id, project_id, head_sha, pr_url, state, started_at, deadline_at, next_poll_at)
     VALUES ($1, $2, $3, $4, 'watching', now(), now() + make_interval(mins => $5), now())
     ON CONFLICT (job_id) DO UPDATE
        SET project_id = EXCLUDED.project_id, head_sha = EXCLUDED.head_sha, pr_url = EXCLUDED.pr_url,
            state = 'watching', observed = 'none', checks = '[]', last_error = NULL, polls = 0,
            outcome = NULL, started_at = EXCLUDED.started_at, deadline_at = EXCLUDED.deadline_at,
            next_poll_at = EXCLUDED.next_poll_at, ended_at = NULL, lease_expires_at = NULL,
            updated_at = now()
      WHERE w.head_sha <> EXCLUDED.head_sha OR w.state = 'watching'
     RETURNING *`,
    [w.jobId, w.projectId, w.headSha, w.prUrl, w.watchMinutes],
  );
  return rows[0] ?? null;
}

/** Wakes the CI watchers (at commit on PostgreSQL; in-process on PGlite). */
export async function notifyWatchStarted(db: Queryable, jobId: string): Promise<void> {
  await db.query("SELECT pg_notify('docwright_ci', $1)", [jobId]);
}

/**
 * A code host's CI webhook named this commit: the project's watches of it fall due now (one
 * that is due already stays due). Returns the jobs whose watches were touched.
 */
export async function updateWatchesDueForCommit(
  db: Queryable,
  projectId: string,
  headSha: string,
): Promise<string[]> {
  const rows = await db.query<{ job_id: string }>(
    `UPDATE ci_watches SET next_poll_at = least(next_poll_at, now()), updated_at = now()
      WHERE project_id = $1 AND head_sha = $2 AND state = 'watching'
      RETURNING job_id`,
    [projectId, headSha],
  );
  return rows.map((r) => r.job_id).sort();
}

/** Takes up to `limit` watches due at `now` that no live lease holds. */
export async function claimDueWatches(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<CiWatchRow[]> {
  return db.query<CiWatchRow>(
    `UPDATE ci_watches
        SET lease_expires_at = $1::timestamptz + make_interval(secs => $3::double precision / 1000),
            updated_at = now()
      WHERE job_id IN (
              SELECT job_id FROM ci_watches
               WHERE state = 'watching' AND next_poll_at <= $1
                 AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
               ORDER BY next_poll_at
               LIMIT $2
               FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now, limit, leaseMs],
  );
}

/** When the next watch falls due, or null when none is watching. */
export async function selectNextPollTime(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ next: Date | null }>(
    "SELECT min(next_poll_at) AS next FROM ci_watches WHERE state = 'watching'",
  );
  return rows[0]?.next ?? null;
}

/** Records a poll that did not end the watch and when to poll next; false when the lease is lost. */
export async function updateWatchPolled(
  db: Queryable,
  lease: CiLease,
  p: {
    observed: CiObserved;
    checks: CiWatchRow['checks'];
    lastError: string | null;
    nextPollAt: Date;
    polled: boolean;
  },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE ci_watches
        SET observed = $4, checks = $5, last_error = $6, next_poll_at = $7,
            polls = polls + CASE WHEN $8 THEN 1 ELSE 0 END, lease_expires_at = NULL, updated_at = now()
      WHERE job_id = $1 AND head_sha = $2 AND lease_expires_at = $3 AND state = 'watching'
      RETURNING job_id`,
    [
      lease.jobId,
      lease.headSha,
      lease.leaseExpiresAt,
      p.observed,
      JSON.stringify(p.checks),
      p.lastError,
      p.nextPollAt,
      p.polled,
    ],
  );
  return rows.length > 0;
}

/**
 * Ends the watch; `followUps` is added to the job's count (1 reserves a follow-up before it is
 * sent, so a crash never sends more than the cap). Null when the lease is lost.
 */
export async function updateWatchEnded(
  db: Queryable,
  lease: CiLease,
  e: {
    state: Exclude<CiWatchState, 'watching'>;
    observed: CiObserved;
    checks: CiWatchRow['checks'];
    lastError: string | null;
    outcome: string;
    followUps: number;
    polled: boolean;
  },
): Promise<CiWatchRow | null> {
  const rows = await db.query<CiWatchRow>(
    `UPDATE ci_watches
        SET state = $4, observed = $5, checks = $6, last_error = $7, outcome = $8,
            follow_ups = follow_ups + $9, polls = polls + CASE WHEN $10 THEN 1 ELSE 0 END,
            ended_at = now(), lease_expires_at = NULL, updated_at = now()
      WHERE job_id = $1 AND head_sha = $2 AND lease_expires_at = $3 AND state = 'watching'
      RETURNING *`,
    [
      lease.jobId,
      lease.headSha,
      lease.leaseExpiresAt,
      e.state,
      e.observed,
      JSON.stringify(e.checks),
      e.lastError,
      e.outcome,
      e.followUps,
      e.polled,
    ],
  );
  return rows[0] ?? null;
}

/** After a reserved follow-up could not be sent: gives the reservation back and says why. */
export async function updateFollowUpRefused(
  db: Queryable,
  jobId: string,
  headSha: string,
  outcome: string,
): Promise<void> {
  await db.query(
    `UPDATE ci_watches SET follow_ups = greatest(follow_ups - 1, 0), outcome = $3, updated_at = now()
      WHERE job_id = $1 AND head_sha = $2`,
    [jobId, headSha, outcome],
  );
}

export async function selectWatch(db: Queryable, jobId: string): Promise<CiWatchRow | null> {
  const rows = await db.query<CiWatchRow>('SELECT * FROM ci_watches WHERE job_id = $1', [jobId]);
  return rows[0] ?? null;
}

/** The newest pull_request event of the job: the pull request and the commit it shows. */
export async function selectLastPullRequestEvent(
  db: Queryable,
  jobId: string,
): Promise<{ url?: unknown; headSha?: unknown } | null> {
  const rows = await db.query<{ data: { url?: unknown; headSha?: unknown } }>(
    `SELECT data FROM job_events WHERE job_id = $1 AND type = 'pull_request' ORDER BY id DESC LIMIT 1`,
    [jobId],
  );
  return rows[0]?.data ?? null;
}

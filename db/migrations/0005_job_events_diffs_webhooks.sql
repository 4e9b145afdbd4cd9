-- Live job events (server-sent events with resume), the stored diff of a job, and webhook
-- deliveries. Runs unchanged on PostgreSQL 15+ and on PGlite.

-- Event ids are the SSE ids clients resume from ("everything after id N"), so the events of one
-- job must become visible in id order. A bigserial does not promise that: two transactions take
-- ids 10 and 11, 11 commits first, a reader sends it, and 10 appears later behind the reader's
-- cursor. So each insert first locks its job's row (the same lock every job state change takes,
-- so no new lock order is introduced) and only then takes its id: ids of one job's events are
-- handed out in commit order. The id default moves into this trigger so ids still go 1, 2, 3.
-- The insert also wakes the SSE streams of that job (delivered at commit; in-process on PGlite).
CREATE FUNCTION docwright_job_event_before_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM jobs WHERE id = NEW.job_id FOR NO KEY UPDATE;
  NEW.id := nextval(pg_get_serial_sequence('job_events', 'id'));
  PERFORM pg_notify('docwright_job_events', NEW.job_id);
  RETURN NEW;
END
$$;

ALTER TABLE job_events ALTER COLUMN id DROP DEFAULT;
CREATE TRIGGER job_events_before_insert BEFORE INSERT ON job_events
  FOR EACH ROW EXECUTE FUNCTION docwright_job_event_before_insert();

-- The job's unified diff, saved by the runner after it commits (the worktree is removed after a
-- run). A follow-up replaces it. Capped by the writer; truncated says so.
CREATE TABLE job_diffs (
  job_id      text PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  diff        text NOT NULL,
  total_bytes integer NOT NULL,                        -- size of the whole diff in UTF-8 bytes
  truncated   boolean NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per webhook to send. Written by the trigger below in the same transaction as the job
-- event, so a state change and its webhook commit (or roll back) together; sent and retried by
-- the webhook dispatchers, which claim due rows with FOR UPDATE SKIP LOCKED. While an attempt
-- runs, next_attempt_at is pushed forward as a lease: a dispatcher that dies mid-attempt leaves
-- the row due again once it passes. No secret is ever stored here.
CREATE TABLE webhook_deliveries (
  id                    text PRIMARY KEY,                -- whd_ + 32 hex; also the payload's id
  project_id            text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  job_id                text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  event_id              bigint NOT NULL,                 -- the job_events row it announces
  type                  text NOT NULL CHECK (type IN ('job.completed', 'job.failed', 'job.archived', 'pull_request.opened')),
  job_snapshot          jsonb NOT NULL,                  -- the jobs row as it was at the event
  event_data            jsonb NOT NULL,
  status                text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts              integer NOT NULL DEFAULT 0,
  next_attempt_at       timestamptz,                     -- null once delivered or given up
  last_attempt_at       timestamptz,
  last_response_status  integer,
  last_error            text,                            -- why the last attempt failed, no secrets
  last_response_snippet text,                            -- the start of the receiver's answer
  created_at            timestamptz NOT NULL DEFAULT now(),
  delivered_at          timestamptz,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_project ON webhook_deliveries (project_id, created_at DESC);

-- Which job events become webhooks: the end of a run (completed, failed), archiving, and the
-- first time a job reports a given pull request (a follow-up or a retry that reuses it is not
-- "opened" again). Only for projects with settings.webhookUrl at the time of the event.
CREATE FUNCTION docwright_enqueue_webhook() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  job jobs%ROWTYPE;
  kind text;
BEGIN
  SELECT * INTO job FROM jobs WHERE id = NEW.job_id;
  IF NOT FOUND OR NOT EXISTS (
    SELECT 1 FROM projects WHERE id = job.project_id AND coalesce(settings ->> 'webhookUrl', '') <> ''
  ) THEN
    RETURN NULL;
  END IF;
  IF NEW.type = 'pull_request' THEN
    IF coalesce(NEW.data ->> 'url', '') = '' OR EXISTS (
      SELECT 1 FROM job_events e
       WHERE e.job_id = NEW.job_id AND e.type = 'pull_request' AND e.id < NEW.id
         AND e.data ->> 'url' = NEW.data ->> 'url'
    ) THEN
      RETURN NULL;
    END IF;
    kind := 'pull_request.opened';
  ELSE
    kind := 'job.' || NEW.type;
  END IF;
  INSERT INTO webhook_deliveries (id, project_id, job_id, event_id, type, job_snapshot, event_data, next_attempt_at)
  VALUES ('whd_' || replace(gen_random_uuid()::text, '-', ''), job.project_id, job.id, NEW.id, kind,
          to_jsonb(job), NEW.data, now());
  PERFORM pg_notify('docwright_webhooks', job.project_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER job_events_enqueue_webhook AFTER INSERT ON job_events
  FOR EACH ROW WHEN (NEW.type IN ('completed', 'failed', 'archived', 'pull_request'))
  EXECUTE FUNCTION docwright_enqueue_webhook();

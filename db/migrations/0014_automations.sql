-- Automations: jobs started by merged code changes, schedules and trigger URLs
-- (src/modules/automations). An automation has one trigger; each time it fires, a run is queued
-- (durably, in the request that received the event) and the automation worker turns the run into
-- a job, or records why it skipped it.

CREATE TABLE automations (
  id                  text PRIMARY KEY,                -- aut_ + random base62
  project_id          text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name                text NOT NULL,
  enabled             boolean NOT NULL DEFAULT true,
  trigger             jsonb NOT NULL,                  -- {type: code_change | schedule | webhook, ...}
  prompt_template     text NOT NULL,
  limits              jsonb NOT NULL,                  -- maxOpenPullRequests, dailyRunCap, grouping, quietPeriodSeconds
  trigger_secret_hash text,                            -- webhook trigger: sha256 of its secret, never the secret
  next_run_at         timestamptz,                     -- schedule trigger: when it fires next
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automations_project ON automations (project_id, created_at, id);
CREATE INDEX automations_schedule_due ON automations (next_run_at) WHERE next_run_at IS NOT NULL;

-- One row per firing. queued → started (job_id set) | skipped (skip_reason set). A queued run is
-- claimed by the automation worker with a lease; due_at is later than created_at while a quiet
-- period gathers more events into it.
CREATE TABLE automation_runs (
  id               text PRIMARY KEY,                   -- run_ + random base62
  automation_id    text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  project_id       text NOT NULL,
  trigger_type     text NOT NULL CHECK (trigger_type IN ('code_change', 'schedule', 'webhook')),
  status           text NOT NULL CHECK (status IN ('queued', 'started', 'skipped')),
  context          jsonb NOT NULL,                     -- what the prompt template sees
  job_id           text,                               -- no foreign key: see below
  followed_up      boolean NOT NULL DEFAULT false,     -- grouping: a follow-up on an open job, not a new one
  skip_reason      text,
  due_at           timestamptz NOT NULL,
  lease_expires_at timestamptz,
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz
);
-- job_id has no foreign key on purpose: checking one takes a KEY SHARE lock on the job's row,
-- and a job worker claiming that new job with FOR UPDATE SKIP LOCKED at the same moment would
-- skip it and find it only at its next poll (measured: 2 s added to one pickup in five). Runs go
-- with their automation, which goes with the project, as the jobs do.
CREATE INDEX automation_runs_list ON automation_runs (automation_id, created_at DESC, id DESC);
CREATE INDEX automation_runs_due ON automation_runs (due_at) WHERE status = 'queued';
CREATE INDEX automation_runs_job ON automation_runs (job_id) WHERE job_id IS NOT NULL;

-- What made each run, so the same event never makes two: a code host's delivery id, a merge
-- (host, repository, merged commit), a schedule's due time.
CREATE TABLE automation_event_keys (
  automation_id text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  key           text NOT NULL,
  run_id        text NOT NULL REFERENCES automation_runs (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (automation_id, key)
);

-- Deliveries a code host sent to a project (GitHub X-GitHub-Delivery, GitLab's event UUID, Gitea's
-- delivery id): a redelivery of one already taken is answered 200 and does nothing.
CREATE TABLE automation_inbound_deliveries (
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  host        text NOT NULL,
  delivery_id text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, host, delivery_id)
);

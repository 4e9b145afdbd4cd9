-- CI follow-up (docs/ci-follow-up.md): after a job opens or updates its pull request, the CI
-- watcher polls the code host for the checks of the pushed commit until they end or the watch's
-- deadline passes; when they fail and the project asks for it, it sends the job a follow-up.
-- One row per job: a later push (a follow-up's) restarts it for the new commit and keeps the
-- count of follow-ups it sent, which the project's ciMaxFollowUps bounds.

CREATE TABLE ci_watches (
  job_id           text PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  project_id       text NOT NULL,
  head_sha         text NOT NULL,                     -- the commit whose checks are read
  pr_url           text NOT NULL,
  state            text NOT NULL CHECK (state IN ('watching', 'passed', 'failed', 'timed_out', 'stopped')),
  observed         text NOT NULL DEFAULT 'none',      -- what the last poll saw: none | pending | error | success | failure
  checks           jsonb NOT NULL DEFAULT '[]',       -- the last poll's checks: name, state, url
  last_error       text,                              -- the last host error (no secrets: adapters scrub them)
  polls            integer NOT NULL DEFAULT 0,
  follow_ups       integer NOT NULL DEFAULT 0,        -- follow-ups sent for this job, over all its watches
  outcome          text,                              -- why it ended, for people
  started_at       timestamptz NOT NULL,
  deadline_at      timestamptz NOT NULL,
  next_poll_at     timestamptz NOT NULL,
  ended_at         timestamptz,
  lease_expires_at timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ci_watches_due ON ci_watches (next_poll_at) WHERE state = 'watching';

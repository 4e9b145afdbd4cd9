-- docwright's first schema: projects, their API keys, agent jobs with their prompts and events,
-- and hourly page-view rollups. Runs unchanged on PostgreSQL 15+ and on PGlite.

CREATE TABLE projects (
  id                 text PRIMARY KEY,                 -- prj_ + random base62
  name               text NOT NULL,
  repository_url     text NOT NULL,
  ref                text NOT NULL DEFAULT 'main',     -- branch the agent starts from
  code_host_kind     text NOT NULL CHECK (code_host_kind IN ('github', 'gitlab', 'gitea')),
  code_host_base_url text,                             -- API base for self-hosted hosts; null: the public one
  model              text,                             -- provider:model; null: the server default
  settings           jsonb NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,                       -- key_ + random base62; safe to show and log
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name         text NOT NULL,
  scope        text NOT NULL CHECK (scope IN ('admin', 'read', 'ingest')),
  lookup       text NOT NULL UNIQUE,                   -- the key's first random characters: finds the row
  secret_hash  bytea NOT NULL,                         -- SHA-256 of the whole key; the key itself is never stored
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at);

CREATE TABLE jobs (
  id                  text PRIMARY KEY,                -- job_ + random base62
  project_id          text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  status              text NOT NULL CHECK (status IN ('active', 'completed', 'archived', 'failed')),
  prompt              text NOT NULL,                   -- the first prompt; follow-ups are in job_prompts
  source_repository   text NOT NULL,
  source_ref          text NOT NULL,
  model               text NOT NULL,
  pr_link             text,
  branch              text,
  summary             text,
  stop_reason         text,                            -- why the agent stopped: finish, max_steps, wall_time...
  error_code          text,
  error_message       text,
  usage               jsonb,
  -- Worker bookkeeping: which worker holds the job and until when, and how often it was tried.
  attempts            integer NOT NULL DEFAULT 0,
  lease_owner         text,
  lease_expires_at    timestamptz,
  cancel_requested_at timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  completed_at        timestamptz,
  archived_at         timestamptz
);
-- Newest-first listing with a (created_at, id) cursor, with and without a status filter.
CREATE INDEX jobs_project_created ON jobs (project_id, created_at DESC, id DESC);
CREATE INDEX jobs_project_status_created ON jobs (project_id, status, created_at DESC, id DESC);
-- The worker's queue: active jobs nobody holds, oldest first.
CREATE INDEX jobs_active_queue ON jobs (created_at) WHERE status = 'active';

-- Every prompt a job received: seq 1 is the creating prompt, then follow-up messages. Also the
-- ledger the per-project rate limit counts over.
CREATE TABLE job_prompts (
  job_id     text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq        integer NOT NULL,
  project_id text NOT NULL,
  prompt     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, seq)
);
CREATE INDEX job_prompts_project_time ON job_prompts (project_id, created_at);

CREATE TABLE job_events (
  id         bigserial PRIMARY KEY,                    -- also the SSE event id, for resume
  job_id     text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  type       text NOT NULL,
  data       jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_job ON job_events (job_id, id);

-- Idempotency-Key on job creation: the same key and body give back the first job.
CREATE TABLE job_idempotency_keys (
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key          text NOT NULL,
  request_hash text NOT NULL,
  job_id       text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key)
);

-- Page views counted per project, UTC hour, path, traffic class and agent. 'bot' (non-AI bots)
-- is stored but counted in neither human nor ai. agent and verification are '' for humans.
CREATE TABLE page_views_hourly (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour          timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  path          text NOT NULL,
  traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai', 'bot')),
  agent         text NOT NULL DEFAULT '',
  verification  text NOT NULL DEFAULT '',
  views         bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, hour, path, traffic_class, agent, verification)
);

-- Secrets a project needs at run time (code-host token, model API key, webhook secret), sealed
-- with the server key (AES-256-GCM, bound to project and name). Never returned by any API.
CREATE TABLE project_secrets (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       text NOT NULL,
  sealed     text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, name)
);

-- User agents that the AI-agent list does not know but that look automated, per project and
-- normalised product token: the unknown-agents report (GET /v1/analytics/{projectId}/agents/
-- unrecognized). Counted in memory by the ingest processes per distinct user agent and added
-- here every few seconds in one statement (unrecognized-agents.ts), never per record.
CREATE TABLE unrecognized_agents (
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  product_key text NOT NULL,                            -- the product token in lower case: one row whatever its spelling
  class       text NOT NULL CHECK (class IN ('bot', 'human')),  -- how the views were counted
  product     text NOT NULL,                            -- the spelling first seen
  reason      text NOT NULL,                            -- why it looks automated (first seen): isbot, automated_words, no_browser_engine
  example     text NOT NULL,                            -- a user agent that led here (first seen), at most 256 characters
  views       bigint NOT NULL,
  first_seen  timestamptz NOT NULL,
  last_seen   timestamptz NOT NULL,
  PRIMARY KEY (project_id, product_key, class)
);
CREATE INDEX unrecognized_agents_by_views ON unrecognized_agents (project_id, views DESC, product_key);

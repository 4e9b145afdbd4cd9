-- Versions of the synced AI-agent list (`docwright agents sync`, or the server's scheduled sync).
-- Each sync adds a row; the newest row is the list in use. Every API process and `import-logs`
-- reads it and puts the curated list (data/ai-agents.json, shipped with the release) in front,
-- so curated entries win on a shared token. A running process checks for a newer version every
-- DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS and switches to it without a restart. Old rows stay as
-- the list's history (what was in use when); they are small.
CREATE TABLE agent_list_versions (
  version    integer PRIMARY KEY,                 -- 1, 2, ...: a sync adds the next one
  source     text NOT NULL,                       -- the file or URL the sync read
  format     text NOT NULL CHECK (format IN ('robots_json', 'docwright')),
  entries    jsonb NOT NULL,                      -- synced entries in docwright's format, curated ones left out
  skipped    jsonb NOT NULL,                      -- [{token, reason}]: entries of the source not used
  synced_at  timestamptz NOT NULL DEFAULT now()
);

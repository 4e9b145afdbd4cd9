-- Versions of the synced AI-referrer list (`docwright agents sync --referrers`, or the server's
-- scheduled sync from DOCWRIGHT_REFERRER_LIST_SYNC_URL), kept exactly like agent_list_versions
-- (0011): each sync adds a row, the newest row is the list in use, and every API process and
-- `import-logs` puts the curated list (data/ai-referrers.json) in front of it, so curated
-- assistants keep their hosts and utm_source values. Running processes switch to a newer version
-- within DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS. Old rows stay as the list's history.
CREATE TABLE ai_referrer_list_versions (
  version    integer PRIMARY KEY,                 -- 1, 2, ...: a sync adds the next one
  source     text NOT NULL,                       -- the file or URL the sync read
  format     text NOT NULL CHECK (format IN ('docwright')),
  entries    jsonb NOT NULL,                      -- synced assistants, curated hosts and utm_sources left out
  skipped    jsonb NOT NULL,                      -- [{token, reason}]: assistants of the source not used
  synced_at  timestamptz NOT NULL DEFAULT now()
);

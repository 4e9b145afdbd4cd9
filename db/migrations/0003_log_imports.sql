-- The log-import ledger: how much of each imported log has been counted, so that importing the
-- same log again, or a log that grew, or resuming after a crash, never counts a line twice.
-- A log is recognised by its content, not its name: fingerprint is the SHA-256 of its first line,
-- so access.log and its rotated copy access.log.1.gz are the same source. lines and
-- prefix_sha256 (the SHA-256 of those first `lines` lines) are advanced in the same transaction
-- as the rollup rows the lines produced. See docs/log-import.md.
CREATE TABLE log_imports (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  fingerprint   text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  source_name   text NOT NULL,                 -- the file it was last imported from, for people
  lines         bigint NOT NULL CHECK (lines >= 0),
  prefix_sha256 text NOT NULL CHECK (prefix_sha256 ~ '^[0-9a-f]{64}$'),
  accepted      bigint NOT NULL DEFAULT 0,     -- lines counted as views (human, ai or bot)
  dropped       bigint NOT NULL DEFAULT 0,     -- lines the classification pipeline dropped
  malformed     bigint NOT NULL DEFAULT 0,     -- lines that could not be read
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, fingerprint)
);

-- Idempotency-Key of ingest batches (POST /v1/analytics/{projectId}/events). A client whose 202
-- was lost (a timeout, a dropped connection) sends the batch again with the same key and gets the
-- first answer back instead of having its views counted twice. A key is written in the same
-- transaction as the batch's views, so it exists exactly when they were counted. Honoured for 24
-- hours; older rows are deleted by the ingest writer (src/modules/analytics/ingest/queries.ts).
CREATE TABLE ingest_batches (
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key          text NOT NULL,
  request_hash text NOT NULL,                         -- SHA-256 of the parsed records
  result       jsonb NOT NULL,                        -- the 202 answer: accepted, dropped, rejected
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key)
);
CREATE INDEX ingest_batches_created_at ON ingest_batches (created_at);

-- Page views acknowledged by the ingest endpoint but not yet merged into the rollups.
-- An ingest group commit appends one row here (the group's views summed per rollup key) and
-- answers 202 once it is committed: one small insert instead of upserting every key's hourly and
-- level rows while the clients wait. A merger (src/modules/analytics/staged-views.ts) moves the
-- rows into page_views_hourly and the levels, deleting them in the same transaction, so each
-- acknowledged view is counted exactly once; every export merges what is staged before it reads.
-- No foreign key: a row may hold several projects' views; the merge skips deleted projects.
CREATE TABLE page_views_staged (
  id         bigserial PRIMARY KEY,
  views      bigint NOT NULL,                -- the views the row adds up to
  counts     text NOT NULL,                  -- JSON columns: projectIds, hours (epoch s), paths, classes, agents, verifications, views
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Each visitor sketch row's upper bound of its distinct visitors (human + AI), so a page of
-- /visitors for a range nobody asked before is found by reading the top of each daily and monthly
-- bucket by that bound and stopping early (store/top-visitors.ts, the threshold algorithm /views
-- uses), instead of merging every page's sketches over the range. An exact set's bound is its
-- size; an estimate's is the estimate raised by the documented margin (store/visitor-bounds.ts).
-- Written by every sketch write of a day or month; NULL for rows written before this migration
-- until the writer's backfill counts them (reads that meet a NULL rank the whole range as before).
-- Hourly rows keep none: no read needs it, and their rewrites then change no indexed column.
ALTER TABLE visitor_sketches ADD COLUMN bound bigint CHECK (bound >= 0);

-- The daily and monthly page rows of each bucket by bound (NULLs first: a read meets them at once).
-- Hourly rows are left out: an edge hour is bounded by its day's row. INCLUDE (path) makes the
-- head read index-only where the visibility map allows.
CREATE INDEX visitor_sketches_by_bound
  ON visitor_sketches (project_id, level, bucket, bound DESC) INCLUDE (path)
  WHERE level <> 'h' AND path <> '';

-- Rows still to be counted by the backfill; empty once it is done.
CREATE INDEX visitor_sketches_unbounded
  ON visitor_sketches (project_id, level, bucket, path)
  WHERE bound IS NULL AND level <> 'h';

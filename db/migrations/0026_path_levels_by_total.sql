-- The daily and monthly path levels in each bucket's order of views (human + ai, descending), so a
-- page of /views for a range nobody asked before is found by reading the top of each bucket the
-- range is made of and stopping early (store/top-paths.ts, Fagin's threshold algorithm), instead
-- of summing every path of the range. INCLUDE makes that read index-only where the visibility map
-- allows. Costs writers one more index entry per daily row written (and per monthly row of a
-- sealed month).
CREATE INDEX page_views_daily_by_total
  ON page_views_daily (project_id, day, (human + ai) DESC) INCLUDE (path, human, ai);
CREATE INDEX page_views_monthly_by_total
  ON page_views_monthly (project_id, month, (human + ai) DESC) INCLUDE (path, human, ai);

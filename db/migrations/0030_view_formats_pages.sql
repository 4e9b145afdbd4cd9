-- Views served as other than html per page (docs/analytics-formats.md, "Formats per page"): the
-- format filter of GET .../views. Per UTC hour and day, format, path and traffic class (human and
-- ai only: /views counts no bot views, so bot rows would be written and never read). As in
-- view_formats_*, html is not stored: a page's html views are its views (page_views_*) less the
-- rows here, so views counted before this table existed, and non-html views staged by an older
-- release (their staged formats carry no paths), count as html per page. Written with the views,
-- by the staged-views merge and by log import, in the same transaction.
--
-- The key leads with format: the filter reads one format's rows of a range (an html filter reads
-- every format's, to subtract them).
CREATE TABLE view_formats_pages_hourly (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour          timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  format        text NOT NULL CHECK (format IN ('markdown', 'llms', 'mcp')),
  path          text NOT NULL,
  traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai')),
  views         bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, format, hour, path, traffic_class)
);

CREATE TABLE view_formats_pages_daily (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day           timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  format        text NOT NULL CHECK (format IN ('markdown', 'llms', 'mcp')),
  path          text NOT NULL,
  traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai')),
  views         bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, format, day, path, traffic_class)
);

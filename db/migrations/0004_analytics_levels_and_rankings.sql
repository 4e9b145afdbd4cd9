-- Rollup levels above page_views_hourly, and a cache of per-range path rankings, so exports stay
-- fast over long ranges and many paths (see docs/analytics-export.md, "How exports stay fast").
--
-- page_views_hourly stays the truth: every level below holds exactly the sums of its hourly rows,
-- written in the same transaction by recordPageViews / recordPageViewsIn
-- (src/modules/analytics/rollups.ts). A range is read as whole months + whole days + edge hours.

-- Per-path daily and monthly totals of human and AI views (non-AI bots are never ranked, so
-- they are not kept here). Buckets are UTC days and UTC calendar months. Daily rows are written
-- with every batch. Monthly rows exist only for sealed months (page_view_sealed_months): a month
-- is sealed, from its daily rows, the first time a ranking needs it after it has ended; from then
-- on writers into that month (late views, log imports) update its monthly rows too. Writes into
-- the current month, the common case, so never pay for a monthly row.
CREATE TABLE page_views_daily (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day        timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  path       text NOT NULL,
  human      bigint NOT NULL CHECK (human >= 0),
  ai         bigint NOT NULL CHECK (ai >= 0),
  PRIMARY KEY (project_id, day, path)
);

CREATE TABLE page_view_sealed_months (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  month      timestamptz NOT NULL CHECK (month = date_trunc('month', month, 'UTC')),
  sealed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, month)
);

CREATE TABLE page_views_monthly (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  month      timestamptz NOT NULL CHECK (month = date_trunc('month', month, 'UTC')),
  path       text NOT NULL,
  human      bigint NOT NULL CHECK (human >= 0),
  ai         bigint NOT NULL CHECK (ai >= 0),
  PRIMARY KEY (project_id, month, path)
);

-- Site-wide views per UTC hour and day, by traffic class: totals and time series.
CREATE TABLE traffic_hourly (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour       timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  human      bigint NOT NULL CHECK (human >= 0),
  ai         bigint NOT NULL CHECK (ai >= 0),
  bot        bigint NOT NULL CHECK (bot >= 0),
  PRIMARY KEY (project_id, hour)
);

CREATE TABLE traffic_daily (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day        timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  human      bigint NOT NULL CHECK (human >= 0),
  ai         bigint NOT NULL CHECK (ai >= 0),
  bot        bigint NOT NULL CHECK (bot >= 0),
  PRIMARY KEY (project_id, day)
);

-- Views of each AI agent per UTC hour and day, by verification: the agents export.
CREATE TABLE agent_views_hourly (
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour         timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  agent        text NOT NULL,
  verification text NOT NULL,
  views        bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, hour, agent, verification)
);

CREATE TABLE agent_views_daily (
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day          timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  agent        text NOT NULL,
  verification text NOT NULL,
  views        bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, day, agent, verification)
);

-- The ranking cache: every path of one project over one hour range with its human and AI views,
-- indexed by the export's order, so any page is an index range read. Writers keep each ranking
-- that covers the hours they write exactly up to date, in their own transaction; an idle ranking
-- is marked stale by the next writer instead, and removed by the next build. UNLOGGED: a crash
-- empties both tables together (a cache is rebuilt on demand), and writes to them skip the WAL.
CREATE UNLOGGED TABLE page_view_rankings (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  range_from   timestamptz,          -- inclusive; null = unbounded
  range_to     timestamptz,          -- exclusive; null = unbounded
  stale        boolean NOT NULL DEFAULT false,
  built_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (project_id, range_from, range_to)
);

CREATE UNLOGGED TABLE page_view_ranking_rows (
  ranking_id bigint NOT NULL REFERENCES page_view_rankings (id) ON DELETE CASCADE,
  path       text COLLATE "C" NOT NULL,
  human      bigint NOT NULL,
  ai         bigint NOT NULL,
  total      bigint GENERATED ALWAYS AS (human + ai) STORED,
  PRIMARY KEY (ranking_id, path)
);
CREATE INDEX page_view_ranking_rows_order ON page_view_ranking_rows (ranking_id, total DESC, path);

-- Views counted before this migration: fill the levels from the hourly truth (months are sealed
-- later, on demand).
INSERT INTO page_views_daily (project_id, day, path, human, ai)
SELECT project_id, date_trunc('day', hour, 'UTC'), path,
       coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0),
       coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0)
  FROM page_views_hourly
 WHERE traffic_class IN ('human', 'ai')
 GROUP BY 1, 2, 3;

INSERT INTO traffic_hourly (project_id, hour, human, ai, bot)
SELECT project_id, hour,
       coalesce(sum(views) FILTER (WHERE traffic_class = 'human'), 0),
       coalesce(sum(views) FILTER (WHERE traffic_class = 'ai'), 0),
       coalesce(sum(views) FILTER (WHERE traffic_class = 'bot'), 0)
  FROM page_views_hourly
 GROUP BY 1, 2;

INSERT INTO traffic_daily (project_id, day, human, ai, bot)
SELECT project_id, date_trunc('day', hour, 'UTC'), sum(human), sum(ai), sum(bot)
  FROM traffic_hourly
 GROUP BY 1, 2;

INSERT INTO agent_views_hourly (project_id, hour, agent, verification, views)
SELECT project_id, hour, agent, verification, sum(views)
  FROM page_views_hourly
 WHERE traffic_class = 'ai'
 GROUP BY 1, 2, 3, 4;

INSERT INTO agent_views_daily (project_id, day, agent, verification, views)
SELECT project_id, date_trunc('day', hour, 'UTC'), agent, verification, sum(views)
  FROM agent_views_hourly
 GROUP BY 1, 2, 3, 4;

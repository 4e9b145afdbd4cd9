-- How views were served (docs/analytics-formats.md): markdown (a .md path or an Accept header
-- preferring text/markdown), llms (/llms.txt, /llms-full.txt) or mcp (a call to the docs site's MCP
-- server), per UTC hour and day, format, traffic class and, for AI views, agent and verification.
-- html is not stored: a view's format is html unless a row here says otherwise, so the html
-- views of a range are its views (traffic_*, agent_views_*) less the rows here, and every view
-- counted before this table existed is html. Written with the views, by the staged-views merge
-- and by log import, in the same transaction.
CREATE TABLE view_formats_hourly (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour          timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  format        text NOT NULL CHECK (format IN ('markdown', 'llms', 'mcp')),
  traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai', 'bot')),
  -- '' for human and bot views: the agents export lists AI agents only.
  agent         text NOT NULL,
  verification  text NOT NULL,
  views         bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, hour, format, traffic_class, agent, verification)
);

CREATE TABLE view_formats_daily (
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day           timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  format        text NOT NULL CHECK (format IN ('markdown', 'llms', 'mcp')),
  traffic_class text NOT NULL CHECK (traffic_class IN ('human', 'ai', 'bot')),
  agent         text NOT NULL,
  verification  text NOT NULL,
  views         bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, day, format, traffic_class, agent, verification)
);

-- MCP calls per UTC hour and day, method, tool and client (name and version as the client sent
-- them in initialize; '' when not sent): GET /v1/analytics/{projectId}/mcp-tools.
CREATE TABLE mcp_calls_hourly (
  project_id     text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour           timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  method         text NOT NULL,
  tool           text NOT NULL,
  client_name    text NOT NULL,
  client_version text NOT NULL,
  calls          bigint NOT NULL CHECK (calls >= 0),
  PRIMARY KEY (project_id, hour, method, tool, client_name, client_version)
);

CREATE TABLE mcp_calls_daily (
  project_id     text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day            timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  method         text NOT NULL,
  tool           text NOT NULL,
  client_name    text NOT NULL,
  client_version text NOT NULL,
  calls          bigint NOT NULL CHECK (calls >= 0),
  PRIMARY KEY (project_id, day, method, tool, client_name, client_version)
);

-- Format counts and MCP calls staged with their group's views: JSON of FormatSums.encode()
-- (src/modules/analytics/store/format-sums.ts), NULL when the group had only html views.
ALTER TABLE page_views_staged ADD COLUMN formats text;

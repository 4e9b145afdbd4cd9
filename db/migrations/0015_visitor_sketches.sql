-- Distinct visitors (GET /v1/analytics/{projectId}/visitors; docs/analytics-visitors.md).
--
-- A visitor id is a keyed hash of (salt, project, IP address, user agent) for humans and of
-- (salt, project, IP address) for AI agents, cut to 53 bits; it is never stored on its own, only
-- folded into the sketches below. The salt is random, one per UTC day of receipt, and is deleted
-- once its day is over, so ids of two days cannot be linked, nor turned back into addresses.
CREATE TABLE visitor_salts (
  day  date PRIMARY KEY,
  salt bytea NOT NULL CHECK (length(salt) = 32)
);

-- Mergeable distinct-count sketches of the visitor ids per level (h = UTC hour, d = UTC day,
-- m = UTC calendar month; all three written with every merge), bucket and path, one per class.
-- path '' is the whole site (the union over paths, which per-path sketches cannot give cheaply).
-- A sketch is an exact set of ids while small and a HyperLogLog once large
-- (src/modules/analytics/store/visitor-sketch.ts); NULL when the class has no visitor there.
CREATE TABLE visitor_sketches (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  level      "char" NOT NULL CHECK (level IN ('h', 'd', 'm')),
  bucket     timestamptz NOT NULL,
  path       text NOT NULL,
  human      bytea,
  ai         bytea,
  PRIMARY KEY (project_id, level, bucket, path)
);

-- Bumped by every transaction that writes a project's sketches: a cached ranking of visitors
-- computed at an older generation is stale.
CREATE TABLE visitor_generations (
  project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  generation bigint NOT NULL
);

-- Visitor ids of committed views not yet folded into the sketches: one row per ingest group commit,
-- written in its transaction (JSON of VisitorSets.encode()). Folding costs per sketch row
-- rewritten, so it runs about every ten seconds, many groups at once, and before every visitors
-- export reads.
CREATE TABLE visitor_ids_staged (
  id       bigserial PRIMARY KEY,
  visitors text NOT NULL
);


-- Human views referred by AI assistants (data/ai-referrers.json: the referrer's host or the link's
-- utm_source; only the assistant's name is kept, never the referrer), per UTC hour and day, page and
-- assistant: GET /v1/analytics/{projectId}/referrals. Written by the staged-views merge with the
-- views; the views themselves stay human in every other report.
CREATE TABLE ai_referrals_hourly (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  hour       timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
  assistant  text NOT NULL,
  path       text NOT NULL,
  views      bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, hour, assistant, path)
);

CREATE TABLE ai_referrals_daily (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day        timestamptz NOT NULL CHECK (extract(epoch FROM day) % 86400 = 0),
  assistant  text NOT NULL,
  path       text NOT NULL,
  views      bigint NOT NULL CHECK (views >= 0),
  PRIMARY KEY (project_id, day, assistant, path)
);

-- Referred views staged with their group's views: JSON of ReferralSums.encode(), NULL when none.
ALTER TABLE page_views_staged ADD COLUMN referrals text;

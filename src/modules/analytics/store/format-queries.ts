// SQL for view formats and MCP calls (migration 0020), one function per statement: the hourly and
// daily upserts the merge and log import make, and the reads of the time series, the agents
// export and the MCP calls export. Ranges arrive as span-params.ts slots.
import type { Queryable } from '../../../db/database.ts';
import type { StoredFormat } from './format-sums.ts';
import type { TrafficClass } from './queries.ts';
import { inSpans } from './span-params.ts';

type SpanParams = readonly (number | null)[];

/** Distinct keys as parallel arrays; buckets are ISO 8601 UTC. */
export interface FormatBatch {
  projectIds: string[];
  buckets: string[];
  formats: StoredFormat[];
  trafficClasses: TrafficClass[];
  agents: string[];
  verifications: string[];
  views: number[];
}

export interface McpCallBatch {
  projectIds: string[];
  buckets: string[];
  methods: string[];
  tools: string[];
  clientNames: string[];
  clientVersions: string[];
  calls: number[];
}

export async function upsertFormatsHourly(tx: Queryable, batch: FormatBatch): Promise<void> {
  await tx.query(
    `INSERT INTO view_formats_hourly (project_id, hour, format, traffic_class, agent, verification, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (project_id, hour, format, traffic_class, agent, verification)
     DO UPDATE SET views = view_formats_hourly.views + EXCLUDED.views`,
    [
      batch.projectIds,
      batch.buckets,
      batch.formats,
      batch.trafficClasses,
      batch.agents,
      batch.verifications,
      batch.views,
    ],
  );
}

export async function upsertFormatsDaily(tx: Queryable, batch: FormatBatch): Promise<void> {
  await tx.query(
    `INSERT INTO view_formats_daily (project_id, day, format, traffic_class, agent, verification, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (project_id, day, format, traffic_class, agent, verification)
     DO UPDATE SET views = view_formats_daily.views + EXCLUDED.views`,
    [
      batch.projectIds,
      batch.buckets,
      batch.formats,
      batch.trafficClasses,
      batch.agents,
      batch.verifications,
      batch.views,
    ],
  );
}

export async function upsertMcpCallsHourly(tx: Queryable, batch: McpCallBatch): Promise<void> {
  await tx.query(
    `INSERT INTO mcp_calls_hourly (project_id, hour, method, tool, client_name, client_version, calls)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (project_id, hour, method, tool, client_name, client_version)
     DO UPDATE SET calls = mcp_calls_hourly.calls + EXCLUDED.calls`,
    [
      batch.projectIds,
      batch.buckets,
      batch.methods,
      batch.tools,
      batch.clientNames,
      batch.clientVersions,
      batch.calls,
    ],
  );
}

export async function upsertMcpCallsDaily(tx: Queryable, batch: McpCallBatch): Promise<void> {
  await tx.query(
    `INSERT INTO mcp_calls_daily (project_id, day, method, tool, client_name, client_version, calls)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (project_id, day, method, tool, client_name, client_version)
     DO UPDATE SET calls = mcp_calls_daily.calls + EXCLUDED.calls`,
    [
      batch.projectIds,
      batch.buckets,
      batch.methods,
      batch.tools,
      batch.clientNames,
      batch.clientVersions,
      batch.calls,
    ],
  );
}

export interface FormatBucketRow {
  /** Bucket start, epoch seconds. */
  start: number;
  format: StoredFormat;
  trafficClass: TrafficClass;
  views: number;
}

/** Views per hour, format and class over [from, to) (hours with none are not listed). */
export async function selectHourlyFormats(
  db: Queryable,
  projectId: string,
  from: number,
  to: number,
): Promise<FormatBucketRow[]> {
  const rows = await db.query<FormatBucketRow>(
    `SELECT extract(epoch FROM hour)::double precision AS start, format, traffic_class AS "trafficClass",
            sum(views)::bigint AS views
       FROM view_formats_hourly
      WHERE project_id = $1 AND hour >= to_timestamp($2::double precision) AND hour < to_timestamp($3::double precision)
      GROUP BY hour, format, traffic_class`,
    [projectId, from, to],
  );
  return rows.map((r) => ({ ...r, start: Number(r.start), views: Number(r.views) }));
}

/** Views per day, format and class over [from, to); both bounds on UTC midnight. */
export async function selectDailyFormats(
  db: Queryable,
  projectId: string,
  from: number,
  to: number,
): Promise<FormatBucketRow[]> {
  const rows = await db.query<FormatBucketRow>(
    `SELECT extract(epoch FROM day)::double precision AS start, format, traffic_class AS "trafficClass",
            sum(views)::bigint AS views
       FROM view_formats_daily
      WHERE project_id = $1 AND day >= to_timestamp($2::double precision) AND day < to_timestamp($3::double precision)
      GROUP BY day, format, traffic_class`,
    [projectId, from, to],
  );
  return rows.map((r) => ({ ...r, start: Number(r.start), views: Number(r.views) }));
}

export interface AgentFormatRow {
  agent: string;
  format: StoredFormat;
  verified: number;
  unverified: number;
}

/** AI views per agent and stored format over a range; params: the 6 slots of hourDaySpanParams. */
export async function selectAgentFormats(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
): Promise<AgentFormatRow[]> {
  const rows = await db.query<AgentFormatRow>(
    `SELECT agent, format,
            coalesce(sum(views) FILTER (WHERE verification = 'verified'), 0)::bigint AS verified,
            coalesce(sum(views) FILTER (WHERE verification <> 'verified'), 0)::bigint AS unverified
       FROM (SELECT agent, format, verification, views FROM view_formats_hourly
              WHERE project_id = $1 AND traffic_class = 'ai' AND ${inSpans('hour', 2, 2)}
             UNION ALL
             SELECT agent, format, verification, views FROM view_formats_daily
              WHERE project_id = $1 AND traffic_class = 'ai' AND ${inSpans('day', 6, 1)}) AS f
      GROUP BY agent, format`,
    [projectId, ...spans],
  );
  return rows.map((r) => ({ ...r, verified: Number(r.verified), unverified: Number(r.unverified) }));
}

/** The range's calls as one union: hourly edges ($2-$5) and whole days ($6-$7). */
const CALLS_IN_RANGE = `
  SELECT method, tool, client_name, client_version, calls FROM mcp_calls_hourly
   WHERE project_id = $1 AND ${inSpans('hour', 2, 2)}
  UNION ALL
  SELECT method, tool, client_name, client_version, calls FROM mcp_calls_daily
   WHERE project_id = $1 AND ${inSpans('day', 6, 1)}`;

export interface McpCallRow {
  method: string;
  tool: string;
  clientName: string;
  clientVersion: string;
  calls: number;
}

/** One page of (tool, method, client name, client version) by calls descending, then the key (byte order). */
export async function selectMcpCallPage(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
  page: { limit: number; offset: number },
): Promise<McpCallRow[]> {
  const rows = await db.query<McpCallRow>(
    `SELECT tool, method, client_name AS "clientName", client_version AS "clientVersion",
            sum(calls)::bigint AS calls
       FROM (${CALLS_IN_RANGE}) c
      GROUP BY tool, method, client_name, client_version
      ORDER BY calls DESC, tool COLLATE "C", method COLLATE "C", client_name COLLATE "C", client_version COLLATE "C"
      LIMIT $8 OFFSET $9`,
    [projectId, ...spans, page.limit, page.offset],
  );
  return rows.map((r) => ({ ...r, calls: Number(r.calls) }));
}

/** Calls per value of one key column over the range, most first, at most `limit`. */
async function selectCallsBy(
  db: Queryable,
  column: 'tool' | 'client_name',
  projectId: string,
  spans: SpanParams,
  limit: number,
): Promise<{ name: string; calls: number }[]> {
  const rows = await db.query<{ name: string; calls: number }>(
    `SELECT ${column} AS name, sum(calls)::bigint AS calls FROM (${CALLS_IN_RANGE}) c
      GROUP BY ${column} ORDER BY calls DESC, ${column} COLLATE "C" LIMIT $8`,
    [projectId, ...spans, limit],
  );
  return rows.map((r) => ({ name: r.name, calls: Number(r.calls) }));
}

/** Calls per tool over the range, most first. */
export function selectMcpCallsByTool(db: Queryable, projectId: string, spans: SpanParams, limit: number) {
  return selectCallsBy(db, 'tool', projectId, spans, limit);
}

/** Calls per client name over the range, most first. */
export function selectMcpCallsByClient(db: Queryable, projectId: string, spans: SpanParams, limit: number) {
  return selectCallsBy(db, 'client_name', projectId, spans, limit);
}

/** Every call of the range. */
export async function selectMcpCallTotal(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
): Promise<number> {
  const rows = await db.query<{ calls: number }>(
    `SELECT coalesce(sum(calls), 0)::bigint AS calls FROM (${CALLS_IN_RANGE}) c`,
    [projectId, ...spans],
  );
  return Number(rows[0]!.calls);
}

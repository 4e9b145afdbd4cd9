// SQL for the views per page in each format but html (migration 0030), one function per
// statement: the hourly and daily upserts the merge and log import make, and the reads of the
// format filter of /views. A range arrives as span-params.ts slots: hours and days only, the
// format tables keep no months (pathSpanParams' month slot is NULL for a range split without
// sealed months, which is how these reads split it).
import type { Queryable } from '../../../db/database.ts';
import type { StoredFormat } from './format-sums.ts';
import { type PathViewsRow, pathViewsInSpans } from './ranking-queries.ts';
import { inSpans } from './span-params.ts';

type SpanParams = readonly (number | null)[];

/** Distinct keys as parallel arrays; buckets are ISO 8601 UTC. */
export interface FormatPageBatch {
  projectIds: string[];
  buckets: string[];
  formats: StoredFormat[];
  paths: string[];
  trafficClasses: ('human' | 'ai')[];
  views: number[];
}

export async function upsertFormatPagesHourly(tx: Queryable, batch: FormatPageBatch): Promise<void> {
  await tx.query(
    `INSERT INTO view_formats_pages_hourly (project_id, hour, format, path, traffic_class, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bigint[])
     ON CONFLICT (project_id, format, hour, path, traffic_class)
     DO UPDATE SET views = view_formats_pages_hourly.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.formats, batch.paths, batch.trafficClasses, batch.views],
  );
}

export async function upsertFormatPagesDaily(tx: Queryable, batch: FormatPageBatch): Promise<void> {
  await tx.query(
    `INSERT INTO view_formats_pages_daily (project_id, day, format, path, traffic_class, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bigint[])
     ON CONFLICT (project_id, format, day, path, traffic_class)
     DO UPDATE SET views = view_formats_pages_daily.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.formats, batch.paths, batch.trafficClasses, batch.views],
  );
}

/**
 * The range's non-html views per page as (path, human, ai), each row's views multiplied by $sign
 * (-1 to subtract them from the pages' views): formats = ANY($formats), the hourly edges in the
 * hour slots $first+1.. (two pairs) and the whole days in the day slots $first+5.. (one pair).
 */
function formatPagesInSpans(first: number, formats: number, sign: 1 | -1): string {
  const p = first;
  const s = sign === 1 ? '' : '-';
  return `SELECT path,
                 CASE WHEN traffic_class = 'human' THEN ${s}views ELSE 0 END AS human,
                 CASE WHEN traffic_class = 'ai' THEN ${s}views ELSE 0 END AS ai
            FROM view_formats_pages_hourly
           WHERE project_id = $${p} AND format = ANY($${formats}::text[]) AND ${inSpans('hour', p + 1, 2)}
          UNION ALL
          SELECT path,
                 CASE WHEN traffic_class = 'human' THEN ${s}views ELSE 0 END,
                 CASE WHEN traffic_class = 'ai' THEN ${s}views ELSE 0 END
            FROM view_formats_pages_daily
           WHERE project_id = $${p} AND format = ANY($${formats}::text[]) AND ${inSpans('day', p + 5, 1)}`;
}

const PAGE_ORDER = `GROUP BY path
     HAVING sum(human + ai) > 0
      ORDER BY total DESC, path COLLATE "C"`;

const toRow = (r: PathViewsRow): PathViewsRow => ({
  path: r.path,
  human: Number(r.human),
  ai: Number(r.ai),
  total: Number(r.total),
});

/**
 * One page of the paths with views in one stored format, in the export's order (total
 * descending, then path in byte order); paths with none are left out. Params: the 6 slots of
 * hourDaySpanParams.
 */
export async function selectStoredFormatPathPage(
  db: Queryable,
  projectId: string,
  format: StoredFormat,
  spans: SpanParams,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[]> {
  const rows = await db.query<PathViewsRow>(
    `SELECT path, sum(human)::bigint AS human, sum(ai)::bigint AS ai, sum(human + ai)::bigint AS total
       FROM (${formatPagesInSpans(1, 8, 1)}) AS v
      ${PAGE_ORDER}
      LIMIT $9 OFFSET $10`,
    [projectId, ...spans, [format], page.limit, page.offset],
  );
  return rows.map(toRow);
}

/**
 * One page of the paths' html views: their views (the path levels) less their views in every
 * other format, in the export's order; paths with none are left out. Params: the 10 slots of
 * pathSpanParams of a split without months (so the day slots' second pair is NULL and the hour
 * and first day slots are those of hourDaySpanParams).
 */
export async function selectHtmlPathPage(
  db: Queryable,
  projectId: string,
  spans: SpanParams,
  page: { limit: number; offset: number },
): Promise<PathViewsRow[]> {
  const rows = await db.query<PathViewsRow>(
    `SELECT path, sum(human)::bigint AS human, sum(ai)::bigint AS ai, sum(human + ai)::bigint AS total
       FROM (${pathViewsInSpans(1)}
             UNION ALL
             ${formatPagesInSpans(1, 12, -1)}) AS v
      ${PAGE_ORDER}
      LIMIT $13 OFFSET $14`,
    [projectId, ...spans, STORED_FORMATS, page.limit, page.offset],
  );
  return rows.map(toRow);
}

const STORED_FORMATS: readonly StoredFormat[] = ['markdown', 'llms', 'mcp'];

/**
 * The range's views per page in the given stored formats (every one when none is named), human
 * and AI. Params: the 6 slots of hourDaySpanParams.
 */
export async function selectFormatPageTotals(
  db: Queryable,
  projectId: string,
  format: StoredFormat | null,
  spans: SpanParams,
): Promise<{ human: number; ai: number }> {
  const rows = await db.query<{ human: number; ai: number }>(
    `SELECT coalesce(sum(human), 0)::bigint AS human, coalesce(sum(ai), 0)::bigint AS ai
       FROM (${formatPagesInSpans(1, 8, 1)}) AS v`,
    [projectId, ...spans, format === null ? STORED_FORMATS : [format]],
  );
  return { human: Number(rows[0]!.human), ai: Number(rows[0]!.ai) };
}

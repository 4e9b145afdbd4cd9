// SQL for views referred by AI assistants (migration 0015), one function per statement: the
// hourly and daily upserts the merge makes, and the reads of the referrals export.
import type { Queryable } from '../../../db/database.ts';
import { inSpans } from './span-params.ts';

/** Distinct keys as parallel arrays; buckets are ISO 8601 UTC. */
export interface ReferralBatch {
  projectIds: string[];
  buckets: string[];
  assistants: string[];
  paths: string[];
  views: number[];
}

export async function upsertReferralsHourly(tx: Queryable, batch: ReferralBatch): Promise<void> {
  await tx.query(
    `INSERT INTO ai_referrals_hourly (project_id, hour, assistant, path, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (project_id, hour, assistant, path)
     DO UPDATE SET views = ai_referrals_hourly.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.assistants, batch.paths, batch.views],
  );
}

export async function upsertReferralsDaily(tx: Queryable, batch: ReferralBatch): Promise<void> {
  await tx.query(
    `INSERT INTO ai_referrals_daily (project_id, day, assistant, path, views)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (project_id, day, assistant, path)
     DO UPDATE SET views = ai_referrals_daily.views + EXCLUDED.views`,
    [batch.projectIds, batch.buckets, batch.assistants, batch.paths, batch.views],
  );
}

/** The range's rows as one union: hourly edges ($2-$5) and whole days ($6-$7) (hourDaySpanParams). */
const IN_RANGE = `
  SELECT assistant, path, views FROM ai_referrals_hourly WHERE project_id = $1 AND ${inSpans('hour', 2, 2)}
  UNION ALL
  SELECT assistant, path, views FROM ai_referrals_daily WHERE project_id = $1 AND ${inSpans('day', 6, 1)}`;

export interface ReferralRow {
  assistant: string;
  path: string;
  views: number;
}

/** One page of (assistant, path) by views descending, then assistant and path (byte order). */
export async function selectReferralPage(
  db: Queryable,
  projectId: string,
  spans: readonly (number | null)[],
  page: { limit: number; offset: number },
): Promise<ReferralRow[]> {
  const rows = await db.query<ReferralRow>(
    `SELECT assistant, path, sum(views)::bigint AS views FROM (${IN_RANGE}) r
      GROUP BY assistant, path
      ORDER BY views DESC, assistant COLLATE "C", path COLLATE "C"
      LIMIT $8 OFFSET $9`,
    [projectId, ...spans, page.limit, page.offset],
  );
  return rows.map((r) => ({ ...r, views: Number(r.views) }));
}

/** Referred views per assistant over the range. */
export async function selectReferralsByAssistant(
  db: Queryable,
  projectId: string,
  spans: readonly (number | null)[],
): Promise<{ assistant: string; views: number }[]> {
  const rows = await db.query<{ assistant: string; views: number }>(
    `SELECT assistant, sum(views)::bigint AS views FROM (${IN_RANGE}) r GROUP BY assistant`,
    [projectId, ...spans],
  );
  return rows.map((r) => ({ assistant: r.assistant, views: Number(r.views) }));
}

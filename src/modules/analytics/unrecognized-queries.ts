// Plain SQL over unrecognized_agents (db/migrations/0012_unrecognized_agents.sql).
import type { Queryable } from '../../db/database.ts';

export interface UnrecognizedRowInput {
  projectId: string;
  productKey: string;
  trafficClass: 'bot' | 'human';
  product: string;
  reason: string;
  example: string;
  views: number;
  firstSeen: Date;
  lastSeen: Date;
}

/**
 * Adds counts, one row per (project, product, class) in the input; rows of deleted projects are
 * skipped. The first spelling, reason and example seen stay.
 */
export async function upsertUnrecognizedAgents(
  db: Queryable,
  rows: readonly UnrecognizedRowInput[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO unrecognized_agents
       (project_id, product_key, class, product, reason, example, views, first_seen, last_seen)
     SELECT u.project_id, u.product_key, u.class, u.product, u.reason, u.example, u.views, u.first_seen, u.last_seen
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                   $8::timestamptz[], $9::timestamptz[])
            AS u (project_id, product_key, class, product, reason, example, views, first_seen, last_seen)
       JOIN projects p ON p.id = u.project_id
     ON CONFLICT (project_id, product_key, class) DO UPDATE SET
       views = unrecognized_agents.views + EXCLUDED.views,
       first_seen = least(unrecognized_agents.first_seen, EXCLUDED.first_seen),
       last_seen = greatest(unrecognized_agents.last_seen, EXCLUDED.last_seen)`,
    [
      rows.map((r) => r.projectId),
      rows.map((r) => r.productKey),
      rows.map((r) => r.trafficClass),
      rows.map((r) => r.product),
      rows.map((r) => r.reason),
      rows.map((r) => r.example),
      rows.map((r) => r.views),
      rows.map((r) => r.firstSeen.toISOString()),
      rows.map((r) => r.lastSeen.toISOString()),
    ],
  );
}

export interface UnrecognizedRow {
  product: string;
  class: 'bot' | 'human';
  reason: string;
  example: string;
  views: number;
  first_seen: Date;
  last_seen: Date;
}

/** One page, most views first, then product. */
export async function selectUnrecognizedAgents(
  db: Queryable,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<UnrecognizedRow[]> {
  return db.query<UnrecognizedRow>(
    `SELECT product, class, reason, example, views, first_seen, last_seen
       FROM unrecognized_agents
      WHERE project_id = $1
      ORDER BY views DESC, product_key, class
      LIMIT $2 OFFSET $3`,
    [projectId, page.limit, page.offset],
  );
}

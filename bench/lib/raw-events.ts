// The baseline the export benchmark compares against: the same views as one row per event in a
// plain table, and the plain GROUP BY queries anyone would write over it. The table is filled
// from the hourly rollups (each row expanded into its views, at random seconds inside the hour),
// so both sides count exactly the same data; it is UNLOGGED only to fill faster (reads are the same).
import type { Database } from '../../src/db/database.ts';

export async function createRawEvents(db: Database, projectId: string): Promise<number> {
  await db.exec(`CREATE UNLOGGED TABLE bench_raw_events (
    project_id text NOT NULL, ts timestamptz NOT NULL, path text NOT NULL,
    traffic_class text NOT NULL, agent text NOT NULL, verification text NOT NULL)`);
  await db.query(
    `INSERT INTO bench_raw_events
     SELECT h.project_id, h.hour + floor(random() * 3600) * interval '1 second', h.path, h.traffic_class,
            h.agent, h.verification
       FROM page_views_hourly h CROSS JOIN LATERAL generate_series(1, h.views) AS n
      WHERE h.project_id = $1`,
    [projectId],
  );
  // The index a plain events table would have for range queries.
  await db.exec('CREATE INDEX bench_raw_events_range ON bench_raw_events (project_id, ts)');
  await db.exec('ANALYZE bench_raw_events');
  const [row] = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM bench_raw_events');
  return row!.n;
}

export interface Bounds {
  from: string | null;
  to: string | null;
}

const IN_RANGE = `project_id = $1 AND ts >= coalesce($2::timestamptz, '-infinity') AND ts < coalesce($3::timestamptz, 'infinity')`;

export async function baselinePathsPage(
  db: Database,
  projectId: string,
  bounds: Bounds,
  limit: number,
  offset: number,
): Promise<{ path: string; human: number; ai: number; total: number }[]> {
  return db.query(
    `SELECT path, count(*) FILTER (WHERE traffic_class = 'human') AS human,
            count(*) FILTER (WHERE traffic_class = 'ai') AS ai, count(*) AS total
       FROM bench_raw_events
      WHERE ${IN_RANGE} AND traffic_class IN ('human', 'ai')
      GROUP BY path
      ORDER BY total DESC, path COLLATE "C"
      LIMIT $4 OFFSET $5`,
    [projectId, bounds.from, bounds.to, limit, offset],
  );
}

export async function baselineAgentsPage(
  db: Database,
  projectId: string,
  bounds: Bounds,
  limit: number,
): Promise<{ agent: string; total: number }[]> {
  return db.query(
    `SELECT agent, count(*) FILTER (WHERE verification = 'verified') AS verified, count(*) AS total
       FROM bench_raw_events
      WHERE ${IN_RANGE} AND traffic_class = 'ai'
      GROUP BY agent
      ORDER BY total DESC, agent COLLATE "C"
      LIMIT $4`,
    [projectId, bounds.from, bounds.to, limit],
  );
}

export async function baselineHourlySeries(
  db: Database,
  projectId: string,
  bounds: Bounds,
): Promise<unknown[]> {
  return db.query(
    `SELECT date_trunc('hour', ts) AS hour, count(*) FILTER (WHERE traffic_class = 'human') AS human,
            count(*) FILTER (WHERE traffic_class = 'ai') AS ai, count(*) FILTER (WHERE traffic_class = 'bot') AS bot
       FROM bench_raw_events
      WHERE ${IN_RANGE}
      GROUP BY 1 ORDER BY 1`,
    [projectId, bounds.from, bounds.to],
  );
}

// PGlite runs no autovacuum, so nothing ever reclaims the space of deleted rows or of the old
// versions updates leave (docs/ingestion.md, "PGlite's merges"): page_views_staged and
// visitor_ids_staged get a row per group commit, deleted by the next merge, and without a vacuum
// their files grow by every payload ever staged (300 stagings of 64 KB: 98 MB, 3 MB when
// vacuumed every tenth); every merge writes a new version of each busy rollup row. The merger
// runs this every few merges on PGlite; PostgreSQL's autovacuum does it there.
import type { Queryable } from '../../../db/database.ts';

/**
 * The tables ingest's group commits and merges delete from or update most. Not the whole
 * database: on one with history that visits every table and index (59 ms of the thread against
 * 16 ms for these, with 480,000 hourly rows stored).
 */
const VACUUMED = ['page_views_staged', 'visitor_ids_staged', 'page_views_hourly', 'page_views_daily'];

/** Vacuums them; outside any transaction (VACUUM cannot run in one). */
export async function vacuumIngestTables(db: Queryable): Promise<void> {
  await db.exec(`VACUUM ${VACUUMED.join(', ')}`);
}

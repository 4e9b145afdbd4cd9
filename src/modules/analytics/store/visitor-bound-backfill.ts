// Counts the bounds (migration 0027) of daily and monthly sketch rows written before the column
// existed. Until a range's rows all have one, its first /visitors pages are ranked from every
// page's sketches as before (top-visitors.ts gives up on a NULL); the writer's merger runs this a
// few thousand rows at a time after each fold, so an upgraded database is counted within minutes
// without a long migration. Rows written since 0027 always carry their bound.
import type { Database } from '../../../db/database.ts';
import {
  selectAnyUnboundedSketch,
  selectUnboundedSketches,
  updateSketchBounds,
} from './top-visitor-queries.ts';
import { encodedSketchBound } from './visitor-bounds.ts';

const ROWS_PER_TRANSACTION = 500;

/** Bounds up to `maxRows` rows; returns how many it counted (fewer: none is left). */
export async function backfillSketchBounds(db: Database, maxRows: number): Promise<number> {
  // No transaction at all once every row is counted (the merger calls this after each fold).
  if (!(await selectAnyUnboundedSketch(db))) return 0;
  let done = 0;
  while (done < maxRows) {
    const counted = await db.transaction(async (tx) => {
      const rows = await selectUnboundedSketches(tx, Math.min(ROWS_PER_TRANSACTION, maxRows - done));
      if (rows.length === 0) return 0;
      await updateSketchBounds(tx, {
        projectIds: rows.map((r) => r.project_id),
        levels: rows.map((r) => r.level),
        buckets: rows.map((r) => r.bucket),
        paths: rows.map((r) => r.path),
        bounds: rows.map((r) => encodedSketchBound(r.human) + encodedSketchBound(r.ai)),
      });
      return rows.length;
    });
    done += counted;
    if (counted === 0) break;
  }
  return done;
}

// Page views for a test to read: summed (ViewSums) and added straight to the store's levels in one
// transaction (addViews, as a log import chunk adds them), through the store's interface only.
import type { Database } from '../../src/db/database.ts';
import { addViews, type PageViewCount, ViewSums } from '../../src/modules/analytics/store/index.ts';

/** All the rows counted, or none (a bad row throws a TypeError naming it). */
export async function recordPageViews(
  db: Database,
  rows: Iterable<PageViewCount>,
): Promise<{ keys: number; views: number }> {
  const sums = ViewSums.ofRows(rows);
  if (sums.views === 0) return { keys: 0, views: 0 };
  return db.transaction((tx) => addViews(tx, sums));
}

// The distinct-visitors export: one page of the range's visitor ranking, read through the store
// (store/visitor-reads.ts). See docs/analytics-visitors.md.

import { DEFAULT_VIEWS_LIMIT, type VisitorReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { readVisitorRanking } from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export async function exportVisitors(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  now: () => number = Date.now,
): Promise<VisitorReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const { totals, rows } = await readVisitorRanking(db, projectId, range, now());
  return {
    totals,
    visitors: rows.slice(offset, offset + limit),
    hasMore: rows.length > offset + limit,
    range: reportedRange(range),
  };
}

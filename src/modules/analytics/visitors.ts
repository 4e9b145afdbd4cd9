// The distinct-visitors export: one page of the range's visitor ranking, read through the store
// (its page of the store's `visitors` report). See docs/analytics-visitors.md.

import { DEFAULT_VIEWS_LIMIT, type VisitorReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { readPage } from './store/index.ts';
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
  // One row more than asked says whether another page follows.
  const page = { limit: limit + 1, offset };
  const { totals, rows } = await readPage(db, projectId, range, page, { report: 'visitors', nowMs: now() });
  return {
    totals,
    visitors: rows.slice(0, limit),
    hasMore: rows.length > limit,
    range: reportedRange(range),
  };
}

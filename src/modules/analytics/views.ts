// The page-view export: the range's totals and one page of paths, read through the store.

import { DEFAULT_VIEWS_LIMIT, type PageViewReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { type PathPageOptions, readPathPage } from './store/index.ts';

export { resolveHourRange } from './export-range.ts';

export interface ViewsRequest {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

export type ExportOptions = PathPageOptions;

export async function exportPageViews(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  options: ExportOptions = {},
): Promise<PageViewReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  // The route's schema fills in the defaults; these cover callers that bypass it.
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  // One row more than asked says whether another page follows, without counting them all.
  const { totals, rows } = await readPathPage(db, projectId, range, { limit: limit + 1, offset }, options);
  return {
    totals: { human: totals.human, ai: totals.ai, total: totals.human + totals.ai },
    views: rows.slice(0, limit).map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total })),
    hasMore: rows.length > limit,
    range: reportedRange(range),
  };
}

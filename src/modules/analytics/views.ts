// The page-view export: the range's totals and one page of paths, read through the store; with a
// format, only the views served in that format (docs/analytics-formats.md, "Formats per page").

import { DEFAULT_VIEWS_LIMIT, type PageViewReport, type ViewFormat } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { readPage } from './store/index.ts';

export { resolveHourRange } from './export-range.ts';

export interface ViewsRequest {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  /** Count only the views served in this format; omitted: every view (the contract's answer). */
  format?: ViewFormat | undefined;
}

export interface ExportOptions {
  /** How long building the range's ranking waits for writers before summing the levels. */
  buildLockTimeoutMs?: number | undefined;
  /** Pages reaching at most this many rows are found without a ranking (0: always a ranking). */
  topPathsMaxRows?: number | undefined;
}

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
  const { totals, rows } = await readPage(
    db,
    projectId,
    range,
    { limit: limit + 1, offset },
    {
      report: 'paths',
      buildLockTimeoutMs: options.buildLockTimeoutMs,
      topPathsMaxRows: options.topPathsMaxRows,
      format: request.format,
    },
  );
  return {
    totals: { human: totals.human, ai: totals.ai, total: totals.human + totals.ai },
    views: rows.slice(0, limit).map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total })),
    hasMore: rows.length > limit,
    range: reportedRange(range),
  };
}

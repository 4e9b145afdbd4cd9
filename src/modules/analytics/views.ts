// The page-view export: totals from the traffic levels and one page of paths from the range's
// ranking (rankings.ts), read in one snapshot.

import { DEFAULT_VIEWS_LIMIT, type PageViewReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import type { HourRange } from './store/index.ts';
import {
  beginSnapshotRead,
  hourDaySpanParams,
  isRankingLive,
  mergeStagedViews,
  type PathViewsRow,
  pathSpanParams,
  rankingFor,
  selectPathViewsPageFromLevels,
  selectRankingPage,
  selectTrafficTotals,
  splitRange,
} from './store/index.ts';

export { resolveHourRange } from './export-range.ts';

export interface ViewsRequest {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** A ranking can vanish between finding it and reading it (evicted, or gone stale): try again. */
const RANKING_ATTEMPTS = 3;

interface PageRead {
  totals: { human: number; ai: number };
  rows: PathViewsRow[];
}

async function readPage(
  db: Database,
  projectId: string,
  range: HourRange,
  rankingId: number | null,
  page: { limit: number; offset: number },
): Promise<PageRead | null> {
  return db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    if (rankingId !== null && !(await isRankingLive(tx, rankingId))) return null;
    const totals = await selectTrafficTotals(tx, projectId, hourDaySpanParams(splitRange(range, null)));
    const rows =
      rankingId !== null
        ? await selectRankingPage(tx, rankingId, page)
        : await selectPathViewsPageFromLevels(tx, projectId, pathSpanParams(splitRange(range, null)), page);
    return { totals, rows };
  });
}

export interface ExportOptions {
  /** How long building a ranking waits for writers before reading the levels directly. */
  buildLockTimeoutMs?: number;
}

export async function exportPageViews(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  options: ExportOptions = {},
): Promise<PageViewReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  await mergeStagedViews(db);
  // The route's schema fills in the defaults; these cover callers that bypass it.
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  // One row more than asked says whether another page follows, without counting them all.
  const page = { limit: limit + 1, offset };
  let read: PageRead | null = null;
  for (let attempt = 1; read === null; attempt++) {
    const rankingId =
      attempt < RANKING_ATTEMPTS ? await rankingFor(db, projectId, range, options.buildLockTimeoutMs) : null;
    read = await readPage(db, projectId, range, rankingId, page);
  }
  const { totals, rows } = read;
  return {
    totals: { human: totals.human, ai: totals.ai, total: totals.human + totals.ai },
    views: rows.slice(0, limit).map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total })),
    hasMore: rows.length > limit,
    range: reportedRange(range),
  };
}

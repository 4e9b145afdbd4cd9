// The page-view export: turns dateFrom/dateTo into whole UTC hours, then reads the totals and one
// page of paths from the hourly rollups in one snapshot.

import type { Database } from '../../db/database.ts';
import type { ErrorDetail } from '../../errors/app-error.ts';
import { httpErrors } from '../../http/errors.ts';
import {
  ACCEPTED_DATE_FORMATS,
  ceilToHour,
  compareInstants,
  floorToHour,
  type Instant,
  isoFromEpochSeconds,
  parseDateBound,
} from './date-bounds.ts';
import { analyticsErrors } from './errors.ts';
import { beginSnapshotRead, type HourRange, selectPathViewsPage, selectViewTotals } from './queries.ts';
import { DEFAULT_VIEWS_LIMIT, type PageViewReport } from './schemas.ts';

export interface ViewsRequest {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

function parseQueryDate(name: 'dateFrom' | 'dateTo', text: string | undefined): Instant | null {
  if (text === undefined) return null;
  const parsed = parseDateBound(text);
  if (parsed.ok) return parsed.instant;
  const shown = JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}...` : text);
  const message = `Query parameter "${name}" must be ${ACCEPTED_DATE_FORMATS}; got ${shown} (${parsed.reason}).`;
  const detail: ErrorDetail = { location: 'query', name, message };
  throw httpErrors.invalid_parameter(message, { details: [detail] });
}

/**
 * The hours to count: dateFrom rounded down and dateTo rounded up to the UTC hour, so every view
 * inside the asked range is counted. dateFrom must be earlier than dateTo as given.
 */
export function resolveHourRange(dateFrom: string | undefined, dateTo: string | undefined): HourRange {
  const from = parseQueryDate('dateFrom', dateFrom);
  const to = parseQueryDate('dateTo', dateTo);
  if (from && to && compareInstants(from, to) >= 0) {
    const message = `Query parameter "dateTo" (${dateTo}) must be later than "dateFrom" (${dateFrom}): dateTo is exclusive, so the range would be empty.`;
    throw analyticsErrors.invalid_date_range(message, {
      details: [{ location: 'query', name: 'dateTo', message }],
    });
  }
  return { from: from === null ? null : floorToHour(from), to: to === null ? null : ceilToHour(to) };
}

export async function exportPageViews(
  db: Database,
  projectId: string,
  request: ViewsRequest,
): Promise<PageViewReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  // The route's schema fills in the defaults; these cover callers that bypass it.
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const { totals, rows } = await db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    const totals = await selectViewTotals(tx, projectId, range);
    // One row more than asked says whether another page follows, without counting them all.
    const rows = await selectPathViewsPage(tx, projectId, range, {
      limit: limit + 1,
      offset,
    });
    return { totals, rows };
  });
  return {
    totals: { human: totals.human, ai: totals.ai, total: totals.human + totals.ai },
    views: rows.slice(0, limit).map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total })),
    hasMore: rows.length > limit,
    range: {
      from: range.from === null ? null : isoFromEpochSeconds(range.from),
      to: range.to === null ? null : isoFromEpochSeconds(range.to),
    },
  };
}

// The date rules every export shares: dateFrom/dateTo parsed and widened outward to whole UTC
// hours (see docs/analytics-export.md), and the range as the answer reports it.
import type { ErrorDetail } from '../../errors/app-error.ts';
import { httpErrors } from '../../errors/request-errors.ts';
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
import type { HourRange } from './store/index.ts';

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

export interface ReportedRange {
  from: string | null;
  to: string | null;
}

export function reportedRange(range: HourRange): ReportedRange {
  return {
    from: range.from === null ? null : isoFromEpochSeconds(range.from),
    to: range.to === null ? null : isoFromEpochSeconds(range.to),
  };
}

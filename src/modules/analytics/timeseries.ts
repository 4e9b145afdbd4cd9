// The traffic time series: human, AI and bot views per UTC hour or day, every bucket of the range
// (empty ones as zeros), from the traffic levels.

import {
  MAX_TIMESERIES_BUCKETS,
  type TimeseriesInterval,
  type TimeseriesQuery,
  type TimeseriesReport,
} from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { isoFromEpochSeconds } from './date-bounds.ts';
import { analyticsErrors } from './errors.ts';
import { resolveHourRange } from './export-range.ts';
import type { HourRange } from './store/index.ts';
import {
  ceilToDay,
  DAY_SECONDS,
  floorToDay,
  HOUR_SECONDS,
  readExtent,
  readSeries,
  type TrafficBucketRow,
} from './store/index.ts';

const BUCKET_SECONDS: Record<TimeseriesInterval, number> = { hour: HOUR_SECONDS, day: DAY_SECONDS };

/** The range widened outward to whole buckets (hours are already whole). */
function widenToBuckets(range: HourRange, interval: TimeseriesInterval): HourRange {
  if (interval === 'hour') return range;
  return {
    from: range.from === null ? null : floorToDay(range.from),
    to: range.to === null ? null : ceilToDay(range.to),
  };
}

function checkBucketCount(
  request: TimeseriesQuery,
  interval: TimeseriesInterval,
  from: number,
  to: number,
): void {
  const buckets = (to - from) / BUCKET_SECONDS[interval];
  if (buckets <= MAX_TIMESERIES_BUCKETS) return;
  // Name the bound the client can move: the one it left out, else the end.
  const name = request.dateFrom === undefined ? 'dateFrom' : 'dateTo';
  const message = `The range holds ${buckets} ${interval} buckets; at most ${MAX_TIMESERIES_BUCKETS} are answered. Ask for a shorter range${interval === 'hour' ? ' or interval=day' : ''}${request.dateFrom === undefined ? ' (give dateFrom: without it the series starts at the first views)' : ''}.`;
  throw analyticsErrors.too_many_buckets(message, { details: [{ location: 'query', name, message }] });
}

function emptyReport(interval: TimeseriesInterval, range: HourRange): TimeseriesReport {
  return {
    interval,
    totals: { human: 0, ai: 0, bot: 0, total: 0 },
    buckets: [],
    range: {
      from: range.from === null ? null : isoFromEpochSeconds(range.from),
      to: range.to === null ? null : isoFromEpochSeconds(range.to),
    },
  };
}

export async function exportTimeseries(
  db: Database,
  projectId: string,
  request: TimeseriesQuery,
): Promise<TimeseriesReport> {
  const interval = request.interval ?? 'day';
  const size = BUCKET_SECONDS[interval];
  const asked = widenToBuckets(resolveHourRange(request.dateFrom, request.dateTo), interval);
  let { from, to } = asked;
  if (from === null || to === null) {
    // An omitted bound is where the views start or end.
    const extent = await readExtent(db, projectId);
    if (extent.first === null || extent.last === null) return emptyReport(interval, asked);
    const dataRange = widenToBuckets({ from: extent.first, to: extent.last + HOUR_SECONDS }, interval);
    from ??= dataRange.from!;
    to ??= dataRange.to!;
    if (from >= to) return emptyReport(interval, asked);
  }
  checkBucketCount(request, interval, from, to);

  const rows = await readSeries(db, projectId, interval, from, to);
  const byStart = new Map<number, TrafficBucketRow>(rows.map((row) => [row.start, row]));
  const totals = { human: 0, ai: 0, bot: 0, total: 0 };
  const buckets: TimeseriesReport['buckets'] = [];
  for (let start = from; start < to; start += size) {
    const row = byStart.get(start);
    const human = row?.human ?? 0;
    const ai = row?.ai ?? 0;
    const bot = row?.bot ?? 0;
    buckets.push({ start: isoFromEpochSeconds(start), human, ai, bot, total: human + ai });
    totals.human += human;
    totals.ai += ai;
    totals.bot += bot;
  }
  totals.total = totals.human + totals.ai;
  return {
    interval,
    totals,
    buckets,
    range: { from: isoFromEpochSeconds(from), to: isoFromEpochSeconds(to) },
  };
}

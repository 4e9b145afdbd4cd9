// The traffic time series: human, AI and bot views per UTC hour or day, every bucket of the range
// (empty ones as zeros), from the traffic levels; with a format filter, only the views served in
// that format (the format levels; html is the views the other formats do not claim), and with
// split=format the range's views per format.

import {
  MAX_TIMESERIES_BUCKETS,
  type TimeseriesInterval,
  type TimeseriesQuery,
  type TimeseriesReport,
  VIEW_FORMATS,
  type ViewFormat,
} from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { isoFromEpochSeconds } from './date-bounds.ts';
import { analyticsErrors } from './errors.ts';
import { resolveHourRange } from './export-range.ts';
import type { HourRange } from './store/index.ts';
import { readExtent, readSeries, type Series } from './store/index.ts';
import { ceilToDay, DAY_SECONDS, floorToDay, HOUR_SECONDS } from './time-buckets.ts';

type ClassCounts = { human: number; ai: number; bot: number };
type FormatSplit = NonNullable<TimeseriesReport['formats']>;

const zero = (): ClassCounts => ({ human: 0, ai: 0, bot: 0 });
const withTotal = (c: ClassCounts) => ({ ...c, total: c.human + c.ai });

function emptySplit(): FormatSplit {
  const split = {} as FormatSplit;
  for (const format of VIEW_FORMATS) split[format] = { human: 0, ai: 0, bot: 0, total: 0 };
  return split;
}

/**
 * Each bucket's views in the asked format (every view when none), and the range's views per
 * format (only the asked one when there is a filter). html is a bucket's views less its others.
 */
function countsByBucket(
  traffic: Series['traffic'],
  formatRows: Series['formats'],
  format: ViewFormat | undefined,
): { byStart: Map<number, ClassCounts>; split: FormatSplit } {
  const all = new Map<number, ClassCounts>();
  for (const row of traffic) all.set(row.start, { human: row.human, ai: row.ai, bot: row.bot });
  const stored = new Map<ViewFormat, Map<number, ClassCounts>>();
  const html = new Map<number, ClassCounts>();
  for (const [start, counts] of all) html.set(start, { ...counts });
  for (const row of formatRows) {
    let byStart = stored.get(row.format);
    if (byStart === undefined) {
      byStart = new Map();
      stored.set(row.format, byStart);
    }
    let counts = byStart.get(row.start);
    if (counts === undefined) {
      counts = zero();
      byStart.set(row.start, counts);
    }
    counts[row.trafficClass] += row.views;
    const rest = html.get(row.start);
    if (rest !== undefined) rest[row.trafficClass] -= row.views;
  }
  const inFormat = (f: ViewFormat) =>
    f === 'html' ? html : (stored.get(f) ?? new Map<number, ClassCounts>());
  const split = emptySplit();
  for (const f of VIEW_FORMATS) {
    if (format !== undefined && f !== format) continue;
    const sum = zero();
    for (const counts of inFormat(f).values()) {
      sum.human += counts.human;
      sum.ai += counts.ai;
      sum.bot += counts.bot;
    }
    split[f] = withTotal(sum);
  }
  return { byStart: format === undefined ? all : inFormat(format), split };
}

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

function emptyReport(interval: TimeseriesInterval, range: HourRange, split: boolean): TimeseriesReport {
  return {
    interval,
    totals: { human: 0, ai: 0, bot: 0, total: 0 },
    buckets: [],
    ...(split ? { formats: emptySplit() } : {}),
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
    if (extent.first === null || extent.last === null)
      return emptyReport(interval, asked, request.split === 'format');
    const dataRange = widenToBuckets({ from: extent.first, to: extent.last + HOUR_SECONDS }, interval);
    from ??= dataRange.from!;
    to ??= dataRange.to!;
    if (from >= to) return emptyReport(interval, asked, request.split === 'format');
  }
  checkBucketCount(request, interval, from, to);

  // Without a filter or a split, the format levels are not read at all.
  const byFormat = request.format !== undefined || request.split === 'format';
  const series = await readSeries(db, projectId, { interval, from, to, byFormat });
  const { byStart, split } = countsByBucket(series.traffic, series.formats, request.format);
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
    ...(request.split === 'format' ? { formats: split } : {}),
    range: { from: isoFromEpochSeconds(from), to: isoFromEpochSeconds(to) },
  };
}

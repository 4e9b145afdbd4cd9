// The store's reads of view formats and MCP calls: the traffic series with its views per format,
// and a page of MCP calls with the range's totals, each from one snapshot so the html views
// worked out from them (views less the other formats) never see half a merge.
import type { Database } from '../../../db/database.ts';
import {
  type FormatBucketRow,
  type McpCallRow,
  selectDailyFormats,
  selectHourlyFormats,
  selectMcpCallPage,
  selectMcpCallsByClient,
  selectMcpCallsByTool,
  selectMcpCallTotal,
} from './format-queries.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import type { PageWindow, SeriesInterval } from './reads.ts';
import {
  beginSnapshotRead,
  selectDailyTraffic,
  selectHourlyTraffic,
  type TrafficBucketRow,
} from './report-queries.ts';
import { hourDaySpanParams } from './span-params.ts';
import { mergeStagedViews } from './staged-views.ts';

export type { FormatBucketRow, McpCallRow };

export interface FormatSeries {
  /** The buckets of [from, to) that have views, in order (as readSeries). */
  traffic: TrafficBucketRow[];
  /** Views per bucket, stored format (not html) and class. */
  formats: FormatBucketRow[];
}

/** The traffic series and its views per format, from one snapshot; day bounds on UTC midnight. */
export async function readFormatSeries(
  db: Database,
  projectId: string,
  interval: SeriesInterval,
  from: number,
  to: number,
): Promise<FormatSeries> {
  await mergeStagedViews(db);
  return db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    if (interval === 'hour') {
      return {
        traffic: await selectHourlyTraffic(tx, projectId, from, to),
        formats: await selectHourlyFormats(tx, projectId, from, to),
      };
    }
    return {
      traffic: await selectDailyTraffic(tx, projectId, from, to),
      formats: await selectDailyFormats(tx, projectId, from, to),
    };
  });
}

export interface McpCallPage {
  calls: number;
  rows: McpCallRow[];
  byTool: { name: string; calls: number }[];
  byClient: { name: string; calls: number }[];
}

/** The range's calls, one page of (tool, method, client) rows, and the most-called tools and clients. */
export async function readMcpCallPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  summaryLimit: number,
): Promise<McpCallPage> {
  await mergeStagedViews(db);
  const spans = hourDaySpanParams(splitRange(range, null));
  return db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    return {
      calls: await selectMcpCallTotal(tx, projectId, spans),
      rows: await selectMcpCallPage(tx, projectId, spans, page),
      byTool: await selectMcpCallsByTool(tx, projectId, spans, summaryLimit),
      byClient: await selectMcpCallsByClient(tx, projectId, spans, summaryLimit),
    };
  });
}

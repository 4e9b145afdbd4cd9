// Writes view formats (per class and agent, and per page) and MCP calls to their hourly and daily
// tables, inside the caller's transaction (the staged-views merge, a log import chunk), each
// table's keys sorted (the rollups' lock-order rule).
import type { Queryable } from '../../../db/database.ts';
import { floorToDay } from '../time-buckets.ts';
import {
  type FormatPageBatch,
  upsertFormatPagesDaily,
  upsertFormatPagesHourly,
} from './format-page-queries.ts';
import {
  type FormatBatch,
  type McpCallBatch,
  upsertFormatsDaily,
  upsertFormatsHourly,
  upsertMcpCallsDaily,
  upsertMcpCallsHourly,
} from './format-queries.ts';
import type { FormatCount, FormatPageCount, FormatSums, McpCallCount } from './format-sums.ts';
import { inChunks } from './level-writes.ts';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function formatBatch(counts: readonly FormatCount[]): FormatBatch {
  return {
    projectIds: counts.map((c) => c.projectId),
    buckets: counts.map((c) => iso(c.hourSeconds)),
    formats: counts.map((c) => c.format),
    trafficClasses: counts.map((c) => c.trafficClass),
    agents: counts.map((c) => c.agent),
    verifications: counts.map((c) => c.verification),
    views: counts.map((c) => c.views),
  };
}

function pageBatch(counts: readonly FormatPageCount[]): FormatPageBatch {
  return {
    projectIds: counts.map((c) => c.projectId),
    buckets: counts.map((c) => iso(c.hourSeconds)),
    formats: counts.map((c) => c.format),
    paths: counts.map((c) => c.path),
    trafficClasses: counts.map((c) => c.trafficClass),
    views: counts.map((c) => c.views),
  };
}

function callBatch(counts: readonly McpCallCount[]): McpCallBatch {
  return {
    projectIds: counts.map((c) => c.projectId),
    buckets: counts.map((c) => iso(c.hourSeconds)),
    methods: counts.map((c) => c.method),
    tools: counts.map((c) => c.tool),
    clientNames: counts.map((c) => c.clientName),
    clientVersions: counts.map((c) => c.clientVersion),
    calls: counts.map((c) => c.calls),
  };
}

/** The same counts in day buckets, sorted by key. */
function daily<T extends { hourSeconds: number }>(
  hourly: readonly T[],
  keyOf: (count: T) => string,
  add: (into: T, count: T) => void,
): T[] {
  const days = new Map<string, T>();
  for (const c of hourly) {
    const inDay = { ...c, hourSeconds: floorToDay(c.hourSeconds) };
    const key = keyOf(inDay);
    const found = days.get(key);
    if (found === undefined) days.set(key, inDay);
    else add(found, c);
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

const formatKey = (c: FormatCount) =>
  `${c.projectId}\0${c.hourSeconds}\0${c.format}\0${c.trafficClass}\0${c.agent}\0${c.verification}`;
const pageKey = (c: FormatPageCount) =>
  `${c.projectId}\0${c.hourSeconds}\0${c.format}\0${c.path}\0${c.trafficClass}`;
const callKey = (c: McpCallCount) =>
  `${c.projectId}\0${c.hourSeconds}\0${c.method}\0${c.tool}\0${c.clientName}\0${c.clientVersion}`;

/** Writes the sums of the given projects (others were deleted meanwhile: left out). */
export async function writeFormats(
  tx: Queryable,
  sums: FormatSums,
  projectIds: ReadonlySet<string> = sums.projectIds(),
): Promise<void> {
  if (sums.isEmpty) return;
  const views = sums.sortedViews(projectIds);
  await inChunks(views, formatBatch, (b) => upsertFormatsHourly(tx, b));
  const viewDays = daily(views, formatKey, (into, c) => {
    into.views += c.views;
  });
  await inChunks(viewDays, formatBatch, (b) => upsertFormatsDaily(tx, b));
  const calls = sums.sortedCalls(projectIds);
  await inChunks(calls, callBatch, (b) => upsertMcpCallsHourly(tx, b));
  const callDays = daily(calls, callKey, (into, c) => {
    into.calls += c.calls;
  });
  await inChunks(callDays, callBatch, (b) => upsertMcpCallsDaily(tx, b));
  await writeFormatPages(tx, sums, projectIds);
}

/** The per-page counts (migration 0030): none when the views were all html, or staged by an older release. */
async function writeFormatPages(
  tx: Queryable,
  sums: FormatSums,
  projectIds: ReadonlySet<string>,
): Promise<void> {
  const pages = sums.sortedPages(projectIds);
  if (pages.length === 0) return;
  await inChunks(pages, pageBatch, (b) => upsertFormatPagesHourly(tx, b));
  const pageDays = daily(pages, pageKey, (into, c) => {
    into.views += c.views;
  });
  await inChunks(pageDays, pageBatch, (b) => upsertFormatPagesDaily(tx, b));
}

// Upserts one batch's hourly rows and level rows (levels.ts). A batch of at most
// UPSERT_BATCH_SIZE keys goes in one combined statement that ends by taking the projects' shared
// ranking locks; a larger one goes table by table in chunks, then takes the locks. Both paths
// touch the tables in the same order, each table's keys sorted, so concurrent writers on either
// path lock rows in one global order and cannot deadlock.
import type { Queryable } from '../../../db/database.ts';
import type { KeyedCount } from './keyed-count.ts';
import type { AgentRow, LevelRows, PathLevelRow, TrafficRow } from './levels.ts';
import {
  type AgentBatch,
  type PageViewBatch,
  type PathLevelBatch,
  type TrafficBatch,
  upsertAgentDaily,
  upsertAgentHourly,
  upsertDailyPaths,
  upsertLevelsThenLock,
  upsertMonthlyPaths,
  upsertPageViewBatch,
  upsertTrafficDaily,
  upsertTrafficHourly,
} from './queries.ts';
import { lockProjectsForWriting, RANKING_LOCK_CLASS } from './ranking-queries.ts';

/** Distinct keys per upsert statement: large enough to amortise round trips, small enough for PGlite. */
export const UPSERT_BATCH_SIZE = 1000;

export const hourlyBatch = (counts: readonly KeyedCount[]): PageViewBatch => ({
  projectIds: counts.map((c) => c.projectId),
  hours: counts.map((c) => c.hour),
  paths: counts.map((c) => c.path),
  trafficClasses: counts.map((c) => c.trafficClass),
  agents: counts.map((c) => c.agent),
  verifications: counts.map((c) => c.verification),
  views: counts.map((c) => c.views),
});

const pathBatch = (rows: readonly PathLevelRow[]): PathLevelBatch => ({
  projectIds: rows.map((r) => r.projectId),
  buckets: rows.map((r) => r.bucket),
  paths: rows.map((r) => r.path),
  human: rows.map((r) => r.human),
  ai: rows.map((r) => r.ai),
});

const trafficBatch = (rows: readonly TrafficRow[]): TrafficBatch => ({
  projectIds: rows.map((r) => r.projectId),
  buckets: rows.map((r) => r.bucket),
  human: rows.map((r) => r.human),
  ai: rows.map((r) => r.ai),
  bot: rows.map((r) => r.bot),
});

const agentBatch = (rows: readonly AgentRow[]): AgentBatch => ({
  projectIds: rows.map((r) => r.projectId),
  buckets: rows.map((r) => r.bucket),
  agents: rows.map((r) => r.agent),
  verifications: rows.map((r) => r.verification),
  views: rows.map((r) => r.views),
});

export async function inChunks<Row, Batch>(
  rows: readonly Row[],
  toBatch: (rows: readonly Row[]) => Batch,
  write: (batch: Batch) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += UPSERT_BATCH_SIZE) {
    await write(toBatch(rows.slice(start, start + UPSERT_BATCH_SIZE)));
  }
}

/** The hourly truth only (also what the benchmark compares the levels' cost against). */
export async function writeHourlyOnly(tx: Queryable, counts: readonly KeyedCount[]): Promise<void> {
  await inChunks(counts, hourlyBatch, (b) => upsertPageViewBatch(tx, b));
}

/** Hourly rows and every eager level, then the projects' shared ranking locks. */
export async function writeLevelsThenLock(
  tx: Queryable,
  counts: readonly KeyedCount[],
  levels: LevelRows,
  projectIds: readonly string[],
): Promise<void> {
  if (counts.length <= UPSERT_BATCH_SIZE) {
    await upsertLevelsThenLock(
      tx,
      {
        hourly: hourlyBatch(counts),
        dailyPaths: pathBatch(levels.dailyPaths),
        trafficHourly: trafficBatch(levels.trafficHourly),
        trafficDaily: trafficBatch(levels.trafficDaily),
        agentHourly: agentBatch(levels.agentHourly),
        agentDaily: agentBatch(levels.agentDaily),
      },
      { lockClass: RANKING_LOCK_CLASS, projectIds },
    );
    return;
  }
  await writeHourlyOnly(tx, counts);
  await inChunks(levels.dailyPaths, pathBatch, (b) => upsertDailyPaths(tx, b));
  await inChunks(levels.trafficHourly, trafficBatch, (b) => upsertTrafficHourly(tx, b));
  await inChunks(levels.trafficDaily, trafficBatch, (b) => upsertTrafficDaily(tx, b));
  await inChunks(levels.agentHourly, agentBatch, (b) => upsertAgentHourly(tx, b));
  await inChunks(levels.agentDaily, agentBatch, (b) => upsertAgentDaily(tx, b));
  await lockProjectsForWriting(tx, projectIds);
}

/** Monthly rows of sealed months (written under the lock: see locked-writes.ts). */
export async function writeSealedMonths(tx: Queryable, rows: readonly PathLevelRow[]): Promise<void> {
  await inChunks(rows, pathBatch, (b) => upsertMonthlyPaths(tx, b));
}

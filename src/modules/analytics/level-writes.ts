// Upserts the level rows of one batch (levels.ts), each level in chunks of UPSERT_BATCH_SIZE keys,
// levels in a fixed order.
import type { Queryable } from '../../db/database.ts';
import type { AgentRow, LevelRows, PathLevelRow, TrafficRow } from './levels.ts';
import {
  type AgentBatch,
  type PathLevelBatch,
  type TrafficBatch,
  upsertAgentDaily,
  upsertAgentHourly,
  upsertDailyPaths,
  upsertMonthlyPaths,
  upsertTrafficDaily,
  upsertTrafficHourly,
} from './queries.ts';

const CHUNK = 1000;

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

async function inChunks<Row, Batch>(
  rows: readonly Row[],
  toBatch: (rows: readonly Row[]) => Batch,
  write: (batch: Batch) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK)
    await write(toBatch(rows.slice(start, start + CHUNK)));
}

export async function writeLevels(tx: Queryable, levels: LevelRows): Promise<void> {
  await inChunks(levels.dailyPaths, pathBatch, (b) => upsertDailyPaths(tx, b));
  await inChunks(levels.monthlyPaths, pathBatch, (b) => upsertMonthlyPaths(tx, b));
  await inChunks(levels.trafficHourly, trafficBatch, (b) => upsertTrafficHourly(tx, b));
  await inChunks(levels.trafficDaily, trafficBatch, (b) => upsertTrafficDaily(tx, b));
  await inChunks(levels.agentHourly, agentBatch, (b) => upsertAgentHourly(tx, b));
  await inChunks(levels.agentDaily, agentBatch, (b) => upsertAgentDaily(tx, b));
}

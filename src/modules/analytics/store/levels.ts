// Derives the rows of every level above the hourly truth from one batch of hourly counts: per-path
// daily human/AI totals, site-wide hourly and daily traffic, hourly and daily views per AI agent,
// and per-path monthly totals for the months that are sealed. Pure logic; each level's keys come
// out sorted (see rollups.ts on lock order).

import { floorToDay, floorToMonth } from '../time-buckets.ts';
import type { KeyedCount } from './keyed-count.ts';

export interface PathLevelRow {
  projectId: string;
  bucket: string;
  path: string;
  human: number;
  ai: number;
}

export interface TrafficRow {
  projectId: string;
  bucket: string;
  human: number;
  ai: number;
  bot: number;
}

export interface AgentRow {
  projectId: string;
  bucket: string;
  agent: string;
  verification: string;
  views: number;
}

export interface LevelRows {
  dailyPaths: PathLevelRow[];
  trafficHourly: TrafficRow[];
  trafficDaily: TrafficRow[];
  agentHourly: AgentRow[];
  agentDaily: AgentRow[];
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** Memoises bucket starts: a batch spans few hours, and toISOString is not free. */
function memoised(bucketStart: (hour: number) => number): (hour: number) => string {
  const names = new Map<number, string>();
  return (hour) => {
    let name = names.get(hour);
    if (name === undefined) {
      name = iso(bucketStart(hour));
      names.set(hour, name);
    }
    return name;
  };
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
}

function addPath(map: Map<string, PathLevelRow>, count: KeyedCount, bucket: string): void {
  const key = `${count.projectId}\0${bucket}\0${count.path}`;
  let row = map.get(key);
  if (row === undefined) {
    row = { projectId: count.projectId, bucket, path: count.path, human: 0, ai: 0 };
    map.set(key, row);
  }
  if (count.trafficClass === 'human') row.human += count.views;
  else row.ai += count.views;
}

function addTraffic(map: Map<string, TrafficRow>, count: KeyedCount, bucket: string): void {
  const key = `${count.projectId}\0${bucket}`;
  let row = map.get(key);
  if (row === undefined) {
    row = { projectId: count.projectId, bucket, human: 0, ai: 0, bot: 0 };
    map.set(key, row);
  }
  row[count.trafficClass] += count.views;
}

function addAgent(map: Map<string, AgentRow>, count: KeyedCount, bucket: string): void {
  const key = `${count.projectId}\0${bucket}\0${count.agent}\0${count.verification}`;
  const row = map.get(key);
  if (row === undefined) {
    map.set(key, {
      projectId: count.projectId,
      bucket,
      agent: count.agent,
      verification: count.verification,
      views: count.views,
    });
  } else row.views += count.views;
}

export function levelRowsOf(counts: readonly KeyedCount[]): LevelRows {
  const dayOf = memoised(floorToDay);
  const dailyPaths = new Map<string, PathLevelRow>();
  const trafficHourly = new Map<string, TrafficRow>();
  const trafficDaily = new Map<string, TrafficRow>();
  const agentHourly = new Map<string, AgentRow>();
  const agentDaily = new Map<string, AgentRow>();
  for (const count of counts) {
    const day = dayOf(count.hourSeconds);
    addTraffic(trafficHourly, count, count.hour);
    addTraffic(trafficDaily, count, day);
    // Non-AI bots are never ranked nor broken down by agent: only traffic keeps them.
    if (count.trafficClass === 'bot') continue;
    addPath(dailyPaths, count, day);
    if (count.trafficClass === 'ai') {
      addAgent(agentHourly, count, count.hour);
      addAgent(agentDaily, count, day);
    }
  }
  return {
    dailyPaths: sortedValues(dailyPaths),
    trafficHourly: sortedValues(trafficHourly),
    trafficDaily: sortedValues(trafficDaily),
    agentHourly: sortedValues(agentHourly),
    agentDaily: sortedValues(agentDaily),
  };
}

/**
 * Monthly rows for the counts that fall in sealed months (keys `${projectId}\0${monthStart}`, as
 * selectWriteTargets gives them); nothing when no month of the batch is sealed.
 */
export function sealedMonthRowsOf(
  counts: readonly KeyedCount[],
  sealedMonths: ReadonlySet<string>,
): PathLevelRow[] {
  if (sealedMonths.size === 0) return [];
  const monthOf = memoised(floorToMonth);
  const rows = new Map<string, PathLevelRow>();
  for (const count of counts) {
    if (count.trafficClass === 'bot') continue;
    const month = floorToMonth(count.hourSeconds);
    if (!sealedMonths.has(`${count.projectId}\0${month}`)) continue;
    addPath(rows, count, monthOf(count.hourSeconds));
  }
  return sortedValues(rows);
}

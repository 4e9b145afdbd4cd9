// The writer's half of the ranking cache: after the hourly rows and levels of a batch are written,
// add the batch's human and AI views to every live ranking whose range covers their hours, in the
// same transaction. A reader's page then always agrees with the levels in its snapshot.
//
// Why the shared lock: a builder fills a new ranking from the levels under the project's
// exclusive lock (rankings.ts). A writer that commits before the build's snapshot is in the
// ranking's rows and never saw the ranking; a writer that reads the rankings after the build
// commits adds its own views to it. The lock rules out the third case, a writer that read the
// rankings before the build committed and commits after its snapshot: its views would be missed.
import type { Queryable } from '../../db/database.ts';
import { RANKING_IDLE_SECONDS } from './ranking-policy.ts';
import {
  addToRankingRows,
  type CoveringRanking,
  lockProjectsForWriting,
  markRankingsStale,
  type RankingDeltaBatch,
  selectRankingsCovering,
} from './ranking-queries.ts';
import type { KeyedCount } from './rollups.ts';

const CHUNK = 1000;
const HOUR_SECONDS = 3600;

interface Delta {
  rankingId: number;
  path: string;
  human: number;
  ai: number;
}

function covers(ranking: CoveringRanking, count: KeyedCount): boolean {
  return (
    ranking.projectId === count.projectId &&
    (ranking.from === null || count.hourSeconds >= ranking.from) &&
    (ranking.to === null || count.hourSeconds < ranking.to)
  );
}

function deltasFor(rankings: readonly CoveringRanking[], counts: readonly KeyedCount[]): Delta[] {
  const byKey = new Map<string, Delta>();
  for (const count of counts) {
    if (count.trafficClass === 'bot') continue;
    for (const ranking of rankings) {
      if (!covers(ranking, count)) continue;
      const key = `${ranking.id}\0${count.path}`;
      let delta = byKey.get(key);
      if (delta === undefined) {
        delta = { rankingId: ranking.id, path: count.path, human: 0, ai: 0 };
        byKey.set(key, delta);
      }
      if (count.trafficClass === 'human') delta.human += count.views;
      else delta.ai += count.views;
    }
  }
  // Sorted like every other table's keys, so concurrent writers lock ranking rows in one order.
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

const toBatch = (deltas: readonly Delta[]): RankingDeltaBatch => ({
  rankingIds: deltas.map((d) => d.rankingId),
  paths: deltas.map((d) => d.path),
  human: deltas.map((d) => d.human),
  ai: deltas.map((d) => d.ai),
});

export async function maintainRankings(tx: Queryable, counts: readonly KeyedCount[]): Promise<void> {
  const projectIds = [...new Set(counts.map((c) => c.projectId))];
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const count of counts) {
    if (count.hourSeconds < first) first = count.hourSeconds;
    if (count.hourSeconds > last) last = count.hourSeconds;
  }
  await lockProjectsForWriting(tx, projectIds);
  const rankings = await selectRankingsCovering(
    tx,
    projectIds,
    first,
    last + HOUR_SECONDS,
    RANKING_IDLE_SECONDS,
  );
  if (rankings.length === 0) return;
  const idle = rankings.filter((r) => r.idle);
  if (idle.length > 0)
    await markRankingsStale(
      tx,
      idle.map((r) => r.id),
    );
  const deltas = deltasFor(
    rankings.filter((r) => !r.idle),
    counts,
  );
  for (let start = 0; start < deltas.length; start += CHUNK) {
    await addToRankingRows(tx, toBatch(deltas.slice(start, start + CHUNK)));
  }
}

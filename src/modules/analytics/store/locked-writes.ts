// The part of a write done under the projects' shared ranking lock: monthly rows of sealed months,
// and every live ranking whose range covers the hours written, in the writer's transaction. A
// reader's page then always agrees with the levels in its snapshot.
//
// Why the lock: a builder (rankings.ts) seals months and fills new rankings from the levels under
// the project's exclusive lock. A writer that commits before the build's snapshot is in what the
// build computed, and never saw the new ranking or seal; a writer that reads its targets after the
// build commits updates them itself. The lock rules out the third case, a writer that read its
// targets before the build committed and commits after its snapshot: its views would be missed.
import type { Queryable } from '../../../db/database.ts';
import { HOUR_SECONDS } from '../time-buckets.ts';
import type { KeyedCount } from './keyed-count.ts';
import { inChunks, writeSealedMonths } from './level-writes.ts';
import { sealedMonthRowsOf } from './levels.ts';
import { RANKING_IDLE_SECONDS } from './ranking-policy.ts';
import {
  addToRankingRows,
  type CoveringRanking,
  markRankingsStale,
  type RankingDeltaBatch,
  selectWriteTargets,
} from './ranking-queries.ts';

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

const deltaBatch = (deltas: readonly Delta[]): RankingDeltaBatch => ({
  rankingIds: deltas.map((d) => d.rankingId),
  paths: deltas.map((d) => d.path),
  human: deltas.map((d) => d.human),
  ai: deltas.map((d) => d.ai),
});

/** Runs after the levels are written and the shared locks are held (level-writes.ts). */
export async function writeUnderLock(
  tx: Queryable,
  counts: readonly KeyedCount[],
  projectIds: readonly string[],
): Promise<void> {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const count of counts) {
    if (count.hourSeconds < first) first = count.hourSeconds;
    if (count.hourSeconds > last) last = count.hourSeconds;
  }
  const targets = await selectWriteTargets(tx, projectIds, first, last + HOUR_SECONDS, RANKING_IDLE_SECONDS);
  await writeSealedMonths(tx, sealedMonthRowsOf(counts, targets.sealedMonths));
  if (targets.rankings.length === 0) return;
  const idle = targets.rankings.filter((r) => r.idle);
  if (idle.length > 0) {
    await markRankingsStale(
      tx,
      idle.map((r) => r.id),
    );
  }
  const live = targets.rankings.filter((r) => !r.idle);
  await inChunks(deltasFor(live, counts), deltaBatch, (b) => addToRankingRows(tx, b));
}

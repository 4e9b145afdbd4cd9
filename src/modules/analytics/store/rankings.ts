// The reader's half of the ranking cache: find the live ranking of (project, hour range), or build
// it. A ranking holds every path of the range with its human and AI views, so any page of the
// export is an index range read, whatever the range's length; writers keep it exact
// (ranking-maintenance.ts). Building one aggregates the levels once: about a second for 50,000
// paths over 30 days on PostgreSQL here, which is why it is kept rather than redone per request.
import type { Database, Queryable } from '../../../db/database.ts';
import { addMonths } from '../time-buckets.ts';
import type { HourRange } from './queries.ts';
import { type MonthRun, monthsToSeal, splitRange } from './range-split.ts';
import {
  BUILD_LOCK_TIMEOUT_MS,
  MAX_RANKINGS_PER_PROJECT,
  RANKING_IDLE_SECONDS,
  RANKING_TOUCH_AFTER_SECONDS,
} from './ranking-policy.ts';
import {
  deleteRetiredRankings,
  fillRanking,
  insertRanking,
  lockProjectForBuilding,
  sealMonths,
  selectFirstDay,
  selectRanking,
  touchRanking,
} from './ranking-queries.ts';
import { pathSpanParams } from './span-params.ts';

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The id of a live ranking for the range, built if need be; null when a build could not get the
 * project's lock in time (writers kept it): the caller then reads the levels directly.
 */
export async function rankingFor(
  db: Database,
  projectId: string,
  range: HourRange,
  buildLockTimeoutMs = BUILD_LOCK_TIMEOUT_MS,
): Promise<number | null> {
  return (await liveRanking(db, projectId, range)) ?? buildRanking(db, projectId, range, buildLockTimeoutMs);
}

/** The id of the live ranking for the range, marked as used; null when there is none. */
export async function liveRanking(db: Database, projectId: string, range: HourRange): Promise<number | null> {
  const existing = await selectRanking(db, projectId, range);
  if (existing !== null && !existing.stale) {
    if (existing.unusedFor < RANKING_TOUCH_AFTER_SECONDS) return existing.id;
    if (await touchRanking(db, existing.id)) return existing.id;
  }
  return null;
}

/** Seals every month of the run that is not sealed yet (the statement skips sealed ones). */
async function sealRun(tx: Queryable, projectId: string, run: MonthRun): Promise<void> {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let month = run.from; month < run.to; month = addMonths(month, 1)) {
    starts.push(month);
    ends.push(addMonths(month, 1));
  }
  await sealMonths(tx, projectId, starts, ends);
}

async function buildRanking(
  db: Database,
  projectId: string,
  range: HourRange,
  lockTimeoutMs: number,
): Promise<number | null> {
  try {
    return await db.transaction(async (tx) => {
      await lockProjectForBuilding(tx, projectId, lockTimeoutMs);
      // Another reader may have built it while this one waited for the lock.
      const existing = await selectRanking(tx, projectId, range);
      if (existing !== null && !existing.stale && (await touchRanking(tx, existing.id))) return existing.id;
      await deleteRetiredRankings(tx, projectId, RANKING_IDLE_SECONDS, MAX_RANKINGS_PER_PROJECT - 1);
      const sealed = monthsToSeal(range, await selectFirstDay(tx, projectId), Date.now() / 1000);
      if (sealed !== null) await sealRun(tx, projectId, sealed);
      const id = await insertRanking(tx, projectId, range);
      await fillRanking(tx, id, projectId, pathSpanParams(splitRange(range, sealed)));
      return id;
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return null;
    throw error;
  }
}

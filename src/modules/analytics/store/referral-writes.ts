// Writes a merge's referred views to the hourly and daily referral levels, inside the merge's
// transaction, each table's keys sorted (the rollups' lock-order rule).
import type { Queryable } from '../../../db/database.ts';
import { floorToDay } from '../time-buckets.ts';
import { inChunks } from './level-writes.ts';
import { type ReferralBatch, upsertReferralsDaily, upsertReferralsHourly } from './referral-queries.ts';
import type { ReferralCount, ReferralSums } from './referral-sums.ts';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function batchOf(counts: readonly ReferralCount[]): ReferralBatch {
  return {
    projectIds: counts.map((c) => c.projectId),
    buckets: counts.map((c) => iso(c.hourSeconds)),
    assistants: counts.map((c) => c.assistant),
    paths: counts.map((c) => c.path),
    views: counts.map((c) => c.views),
  };
}

export async function writeReferrals(
  tx: Queryable,
  sums: ReferralSums,
  projectIds: ReadonlySet<string>,
): Promise<void> {
  if (sums.isEmpty) return;
  const hourly = sums.sortedCounts(projectIds);
  await inChunks(hourly, batchOf, (b) => upsertReferralsHourly(tx, b));
  const daily = new Map<string, ReferralCount>();
  for (const c of hourly) {
    const day = floorToDay(c.hourSeconds);
    const key = `${c.projectId}\0${day}\0${c.assistant}\0${c.path}`;
    const found = daily.get(key);
    if (found === undefined) daily.set(key, { ...c, hourSeconds: day });
    else found.views += c.views;
  }
  const sorted = [...daily.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
  await inChunks(sorted, batchOf, (b) => upsertReferralsDaily(tx, b));
}

// Page views staged by ingestion (migration 0008) and their merge into the rollups.
//
// An ingest group commit only appends its views, summed per rollup key, as one row: the clients
// wait for one small insert, not for every key's hourly and level upserts. The merge moves staged
// rows into the rollups (rollups.ts, the same writer log import and tests use) and deletes them
// in one transaction, so a view is counted exactly once whichever process merges and whenever it
// crashes. Its cost grows with the distinct keys it writes, not the views: merging a second's
// worth of groups at once writes each popular page's row once instead of once per group.
//
// Freshness: every export calls mergeStagedViews first, so a view acknowledged before the read
// began is in the answer. Merges are serialised by an advisory lock: a read that comes while
// another process merges waits for it instead of missing the rows that merge holds.
import type { Database, Queryable } from '../../db/database.ts';
import type { TrafficClass } from './queries.ts';
import { CountSums, type PageViewCount, pageViewCountProblem, recordSortedCountsIn } from './rollups.ts';
import {
  deleteOldestStaged,
  insertStagedCounts,
  lockStaging,
  type StagedRow,
  selectAnyStaged,
  selectExistingProjects,
} from './staged-queries.ts';

/** Staged rows taken per merge transaction (each row is one group commit's keys). */
const ROWS_PER_MERGE = 100;
const HOUR_MS = 3_600_000;
const HOUR_S = 3600;

/** The JSON layout of a staged row: one array per column, the same length. */
interface StagedColumns {
  projectIds: string[];
  hours: number[];
  paths: string[];
  classes: TrafficClass[];
  agents: string[];
  verifications: string[];
  views: number[];
}

/**
 * A group's rows as one staged row, checked as the merge will check them (so a staged row can
 * always be merged) but not summed: the merge sums across many groups anyway, and summing here
 * too cost more of the event loop than encoding the repeats. Throws a TypeError on a bad row.
 */
export function encodeStagedRows(groups: readonly (readonly PageViewCount[])[]): StagedRow {
  const columns: StagedColumns = {
    projectIds: [],
    hours: [],
    paths: [],
    classes: [],
    agents: [],
    verifications: [],
    views: [],
  };
  let views = 0;
  let index = 0;
  for (const rows of groups) {
    for (const row of rows) {
      const problem = pageViewCountProblem(row);
      if (problem !== null) throw new TypeError(`page views row ${index}: ${problem}`);
      index++;
      if (row.views === 0) continue;
      columns.projectIds.push(row.projectId);
      columns.hours.push(Math.floor(row.hour.getTime() / HOUR_MS) * HOUR_S);
      columns.paths.push(row.path);
      columns.classes.push(row.trafficClass);
      columns.agents.push(row.agent ?? '');
      columns.verifications.push(row.verification ?? '');
      columns.views.push(row.views);
      views += row.views;
    }
  }
  return { views, counts: JSON.stringify(columns) };
}

/**
 * Adds a staged row's counts to the sums. They were checked when staged; only the hour's text is
 * made here, once per distinct hour.
 */
function sumStaged(sums: CountSums, hours: Map<number, string>, text: string): void {
  const c = JSON.parse(text) as StagedColumns;
  for (let i = 0; i < c.paths.length; i++) {
    const hourSeconds = c.hours[i]!;
    let iso = hours.get(hourSeconds);
    if (iso === undefined) {
      iso = new Date(hourSeconds * 1000).toISOString();
      hours.set(hourSeconds, iso);
    }
    sums.add({
      projectId: c.projectIds[i]!,
      hour: iso,
      hourSeconds,
      path: c.paths[i]!,
      trafficClass: c.classes[i]!,
      agent: c.agents[i]!,
      verification: c.verifications[i]!,
      views: c.views[i]!,
    });
  }
}

/** Appends the rows of a group's submissions inside the group's transaction. */
export async function stageRows(
  tx: Queryable,
  groups: readonly (readonly PageViewCount[])[],
): Promise<number> {
  const row = encodeStagedRows(groups);
  if (row.views > 0) await insertStagedCounts(tx, row);
  return row.views;
}

export interface MergeResult {
  /** Staged rows merged. */
  rows: number;
  /** Views they added to the rollups. */
  views: number;
  /** Views dropped because their project was deleted after they were acknowledged. */
  orphanViews: number;
}

/** One transaction: the oldest staged rows into the rollups. */
async function mergeOnce(db: Database): Promise<MergeResult> {
  return db.transaction(async (tx) => {
    await lockStaging(tx);
    const staged = await deleteOldestStaged(tx, ROWS_PER_MERGE);
    if (staged.length === 0) return { rows: 0, views: 0, orphanViews: 0 };
    const sums = new CountSums();
    const hours = new Map<number, string>();
    for (const row of staged) sumStaged(sums, hours, row.counts);
    const counts = sums.sorted();
    const existing = await selectExistingProjects(tx, [...new Set(counts.map((c) => c.projectId))]);
    const written = await recordSortedCountsIn(
      tx,
      counts.filter((c) => existing.has(c.projectId)),
    );
    const stagedViews = staged.reduce((sum, r) => sum + Number(r.views), 0);
    return { rows: staged.length, views: written.views, orphanViews: stagedViews - written.views };
  });
}

/**
 * Merges everything staged when it is called (and whatever arrives meanwhile, batch by batch).
 * Every export calls it before reading, so acknowledged views are in the answer; with nothing
 * staged it costs one indexed read and no transaction.
 */
export async function mergeStagedViews(db: Database): Promise<MergeResult> {
  const total: MergeResult = { rows: 0, views: 0, orphanViews: 0 };
  if (!(await selectAnyStaged(db))) return total;
  for (;;) {
    const merged = await mergeOnce(db);
    total.rows += merged.rows;
    total.views += merged.views;
    total.orphanViews += merged.orphanViews;
    if (merged.rows < ROWS_PER_MERGE) return total;
  }
}

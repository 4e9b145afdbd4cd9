// Visitor ids between ingest and the sketches. Rewriting every popular page's hour, day and month
// sketches (up to 16 KiB each) with every group commit or merge would cost far more than the
// views; instead each group commit appends its ids as one row, in its own transaction (in the
// statement that stages its views: staged-queries.ts), and a fold takes many groups' rows at once
// and rewrites each sketch once: about every FOLD_INTERVAL_MS from the writer's merger, and before
// every visitors export reads, so an acknowledged view's visitor is always in the answer. Folds
// are serialised by an advisory lock; rows are deleted in the fold's transaction, so each id is
// folded exactly once whichever process folds and whenever it crashes.
import type { Database } from '../../../db/database.ts';
import { selectExistingProjects } from './staged-queries.ts';
import { deleteOldestStagedVisitors, lockVisitorFold, selectAnyStagedVisitors } from './visitor-queries.ts';
import { type EncodedVisitors, VisitorSets } from './visitor-sets.ts';
import { writeVisitorSets } from './visitor-writes.ts';

/** How often the writer's merger folds, at most; a visitors export folds whatever waits first. */
export const FOLD_INTERVAL_MS = 10_000;

/** Staged rows folded per transaction. */
const ROWS_PER_FOLD = 100;

/**
 * A group's visitor ids as staged (null: none), by the group commit's staging statement: bytes
 * (VisitorSets.encodeBinary()), appended in the same statement as the group's views.
 */
export function stagedVisitorIds(sets: VisitorSets): Buffer | null {
  return sets.isEmpty ? null : sets.encodeBinary();
}

/** Folds everything staged into the sketches; returns the staged rows folded. */
export async function foldStagedVisitors(db: Database): Promise<number> {
  if (!(await selectAnyStagedVisitors(db))) return 0;
  let folded = 0;
  for (;;) {
    const rows = await db.transaction(async (tx) => {
      await lockVisitorFold(tx);
      const staged = await deleteOldestStagedVisitors(tx, ROWS_PER_FOLD);
      const sets = new VisitorSets();
      for (const row of staged) {
        // Rows staged before migration 0021 hold JSON text.
        if (row.ids !== null) sets.addBinary(row.ids);
        else sets.addEncoded(JSON.parse(row.visitors!) as EncodedVisitors);
      }
      const projects = [...new Set([...sets.entries()].map((s) => s.projectId))];
      // A project deleted since its views were merged takes its visitors with it.
      const existing = await selectExistingProjects(tx, projects);
      await writeVisitorSets(tx, sets.only(existing));
      return staged.length;
    });
    folded += rows;
    if (rows < ROWS_PER_FOLD) return folded;
  }
}

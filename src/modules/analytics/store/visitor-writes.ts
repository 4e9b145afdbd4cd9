// Folds a batch's visitor ids into the sketches of every level (hour, day, month), per page and
// for the whole site (path ''): for each key, the stored sketch is read (locked), the ids added,
// and the row written back. Called by the fold (visitor-staging.ts) inside its transaction, which
// its advisory lock serialises; the row locks keep any other writer correct too. Keys are written
// sorted, as the rollups' are.
import type { Queryable } from '../../../db/database.ts';
import { floorToDay, floorToMonth } from '../time-buckets.ts';
import { sketchBound } from './visitor-bounds.ts';
import {
  bumpGenerations,
  type SketchBatch,
  type SketchLevel,
  selectSketchesForUpdate,
  upsertSketches,
} from './visitor-queries.ts';
import { SITE_PATH, type VisitorSets } from './visitor-sets.ts';
import { VisitorSketch } from './visitor-sketch.ts';

/** Keys per statement (a dense sketch is 16 KiB: a batch stays a few MB at most). */
const SKETCH_BATCH_SIZE = 500;

interface PendingRow {
  projectId: string;
  level: SketchLevel;
  bucket: string;
  path: string;
  human: VisitorSketch | null;
  ai: VisitorSketch | null;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function rowsOf(sets: VisitorSets): PendingRow[] {
  const rows = new Map<string, PendingRow>();
  for (const set of sets.entries()) {
    const buckets: [SketchLevel, number][] = [
      ['h', set.hourSeconds],
      ['d', floorToDay(set.hourSeconds)],
      ['m', floorToMonth(set.hourSeconds)],
    ];
    for (const [level, seconds] of buckets) {
      const bucket = iso(seconds);
      for (const path of [set.path, SITE_PATH]) {
        const key = `${set.projectId}\0${level}\0${bucket}\0${path}`;
        let row = rows.get(key);
        if (row === undefined) {
          row = { projectId: set.projectId, level, bucket, path, human: null, ai: null };
          rows.set(key, row);
        }
        row[set.visitorClass] ??= new VisitorSketch();
        const sketch = row[set.visitorClass]!;
        for (const id of set.ids) sketch.add(id);
      }
    }
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

const hex = (sketch: VisitorSketch | null) =>
  sketch === null ? null : Buffer.from(sketch.encode()).toString('hex');

/** Adds the ids to the stored sketches, inside the caller's transaction. */
export async function writeVisitorSets(tx: Queryable, sets: VisitorSets): Promise<void> {
  if (sets.isEmpty) return;
  const rows = rowsOf(sets);
  for (let start = 0; start < rows.length; start += SKETCH_BATCH_SIZE) {
    const chunk = rows.slice(start, start + SKETCH_BATCH_SIZE);
    const keys = {
      projectIds: chunk.map((r) => r.projectId),
      levels: chunk.map((r) => r.level),
      buckets: chunk.map((r) => r.bucket),
      paths: chunk.map((r) => r.path),
    };
    const stored = await selectSketchesForUpdate(tx, keys);
    const byKey = new Map(chunk.map((r) => [`${r.projectId}\0${r.level}\0${r.bucket}\0${r.path}`, r]));
    for (const old of stored) {
      const row = byKey.get(`${old.project_id}\0${old.level}\0${old.bucket.toISOString()}\0${old.path}`);
      if (row === undefined) continue;
      row.human = mergeStored(row.human, old.human);
      row.ai = mergeStored(row.ai, old.ai);
    }
    const batch: SketchBatch = {
      ...keys,
      human: chunk.map((r) => hex(r.human)),
      ai: chunk.map((r) => hex(r.ai)),
      // Hourly rows are read by no bound (an edge hour is bounded by its day's row): they keep
      // none, so rewriting them changes no indexed column and can stay a HOT update.
      bounds: chunk.map((r) => (r.level === 'h' ? null : sketchBound(r.human) + sketchBound(r.ai))),
    };
    await upsertSketches(tx, batch);
  }
  await bumpGenerations(tx, [...new Set(rows.map((r) => r.projectId))].sort());
}

function mergeStored(fresh: VisitorSketch | null, stored: Uint8Array | null): VisitorSketch | null {
  if (stored === null) return fresh;
  const sketch = VisitorSketch.decode(stored);
  if (fresh !== null) sketch.merge(fresh);
  return sketch;
}

// How a page's stored sketch rows become its counts, shared by the two ways a range is read (the
// whole ranking in visitor-reads.ts, the early stop in top-visitors.ts), so both give a page the
// same numbers: the rows are merged per class (a merge's result does not depend on its order)
// and counted, with total the union's count kept within its bounds. Pure logic, no I/O.
import type { SketchRow } from './visitor-queries.ts';
import { unionCount, VisitorSketch } from './visitor-sketch.ts';

export interface VisitorCountRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface PathSketches {
  human: VisitorSketch | null;
  ai: VisitorSketch | null;
}

/**
 * Merges the rows per path and class: each class's rows are gathered first and merged at once
 * (VisitorSketch.union), not one row at a time.
 */
export function mergeByPath(rows: Iterable<SketchRow>): Map<string, PathSketches> {
  const encoded = new Map<string, { human: Uint8Array[]; ai: Uint8Array[] }>();
  for (const row of rows) {
    let lists = encoded.get(row.path);
    if (lists === undefined) {
      lists = { human: [], ai: [] };
      encoded.set(row.path, lists);
    }
    if (row.human !== null) lists.human.push(row.human);
    if (row.ai !== null) lists.ai.push(row.ai);
  }
  const out = new Map<string, PathSketches>();
  for (const [path, { human, ai }] of encoded) {
    out.set(path, {
      human: human.length === 0 ? null : VisitorSketch.union(human),
      ai: ai.length === 0 ? null : VisitorSketch.union(ai),
    });
  }
  return out;
}

const countOf = (sketch: VisitorSketch | null) => (sketch === null ? 0 : sketch.count());

/** One path's counts from its merged sketches. */
export function countPath(path: string, { human, ai }: PathSketches): VisitorCountRow {
  const counts = { human: countOf(human), ai: countOf(ai) };
  // Estimates of large sets could otherwise break total's bounds by a visitor or two.
  const union = Math.min(
    Math.max(unionCount([human, ai]), counts.human, counts.ai),
    counts.human + counts.ai,
  );
  return { path, ...counts, total: union };
}

/** The export's order: total descending, then path ascending (UTF-16 code units). */
export function visitorOrder(a: VisitorCountRow, b: VisitorCountRow): number {
  return b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

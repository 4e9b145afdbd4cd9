// Upper bounds of distinct visitors that hold for the sketches' counts, so a ranking can stop
// reading early (top-visitors.ts). Pure logic, no I/O.
//
// Each sketch row stores a bound of its ids (migration 0027): an exact set's size, or a
// HyperLogLog's estimate raised by ESTIMATE_MARGIN. A page's visitors over a range are the union of
// its rows' ids, at most the sum of their sizes; so, whatever the merge, a page whose rows' bounds
// sum to S has a count of at most pageBound(S):
//   - exact sets only, and a union that stays exact: count = |union| <= sum of sizes <= S;
//   - otherwise the count is a HyperLogLog estimate of the union, and each row's bound is at least
//     its true size as long as no estimate is low by more than the margin; the union's estimate is
//     at most (1 + margin) times its true size as long as it is not high by more than the margin.
// The margin is 5%, about six relative standard errors of the 2^14-register sketch (0.81%): a
// Gaussian tail of about 1e-9 per estimate. That is the one way the early stop can differ from
// ranking every page: an estimate off by more than 5% on a page near the page's end.
import { VisitorSketch } from './visitor-sketch.ts';

/** How far an estimate is taken to be from its set's true size, at most (relative). */
export const ESTIMATE_MARGIN = 0.05;

/** A bound of one sketch's distinct ids (0 for none). */
export function sketchBound(sketch: VisitorSketch | null): number {
  if (sketch === null) return 0;
  const count = sketch.count();
  return sketch.exact ? count : Math.ceil(count * (1 + ESTIMATE_MARGIN));
}

/** sketchBound of stored bytes; an exact set's is read from its length, without decoding. */
export function encodedSketchBound(bytes: Uint8Array | null): number {
  if (bytes === null) return 0;
  return VisitorSketch.exactSizeOf(bytes) ?? sketchBound(VisitorSketch.decode(bytes));
}

/**
 * The most total visitors a page can count over rows whose bounds sum to `sum`: each class's
 * count is at most (1 + margin) times its part (plus a half for rounding), and total is at most
 * human + ai.
 */
export function pageBound(sum: number): number {
  return sum === 0 ? 0 : Math.floor((1 + ESTIMATE_MARGIN) * sum) + 1;
}

// Help for an edit whose old text is not in the file: where the text the model meant most likely
// is, so the model can copy it exactly instead of guessing again.
import { numberLines } from './text-file.ts';

/** Letter pairs of a string: the basis of the Dice similarity below. */
function bigrams(text: string): Map<string, number> {
  const pairs = new Map<string, number>();
  const s = text.toLowerCase().replace(/\s+/g, ' ').trim();
  for (let i = 0; i < s.length - 1; i++) {
    const pair = s.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  return pairs;
}

/** Dice coefficient over letter pairs: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  let sizeX = 0;
  let sizeY = 0;
  let shared = 0;
  for (const n of x.values()) sizeX += n;
  for (const [pair, n] of y) {
    sizeY += n;
    shared += Math.min(n, x.get(pair) ?? 0);
  }
  if (sizeX + sizeY === 0) return a.trim() === b.trim() ? 1 : 0;
  return (2 * shared) / (sizeX + sizeY);
}

const WINDOW_CONTEXT = 2;
const MIN_SIMILARITY = 0.4;

/**
 * The lines of `lines` most like `oldText` (compared window by window, a window as tall as the
 * old text), numbered, with a little context; null when nothing is close.
 */
export function closestLines(lines: readonly string[], oldText: string): string | null {
  const wanted = oldText.replace(/\n$/, '').split('\n');
  const height = Math.max(1, Math.min(wanted.length, lines.length));
  const target = wanted.join('\n');
  let best = -1;
  let bestScore = 0;
  // Long files: compare only windows whose first line looks like the old text's first line.
  const firstWanted = wanted.find((line) => line.trim().length > 0) ?? wanted[0] ?? '';
  for (let start = 0; start + height <= lines.length; start++) {
    if (lines.length > 2000 && similarity(lines[start] ?? '', firstWanted) < MIN_SIMILARITY) continue;
    const score = similarity(lines.slice(start, start + height).join('\n'), target);
    if (score > bestScore) {
      bestScore = score;
      best = start;
    }
  }
  if (best < 0 || bestScore < MIN_SIMILARITY) return null;
  const from = Math.max(0, best - WINDOW_CONTEXT);
  const to = Math.min(lines.length, best + height + WINDOW_CONTEXT);
  return numberLines(lines.slice(from, to), from + 1);
}

/** The line numbers (1-based) at which each occurrence of `needle` starts in `text`. */
export function occurrenceLines(text: string, needle: string): number[] {
  const found: number[] = [];
  let index = text.indexOf(needle);
  while (index >= 0) {
    found.push(text.slice(0, index).split('\n').length);
    index = text.indexOf(needle, index + Math.max(1, needle.length));
  }
  return found;
}

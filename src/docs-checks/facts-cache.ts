// Parsed page facts kept for the life of the process, keyed by the page's git blob id (the SHA-1
// of "blob <bytes>\0<content>", what `git ls-tree` shows) and how it was parsed: a page's facts
// depend on its text and on MDX or not only, so any snapshot of any repository that holds the
// same blob reuses them. A full run over a repository whose pages were parsed before (the base
// of an earlier run, a previous commit sharing most blobs) then parses only the blobs it has not
// seen. Bounded by entry count; the least recently used go first.
import { createHash } from 'node:crypto';
import type { PageFacts } from './page-facts.ts';

/** About 30 MB of facts at a few hundred bytes each: three 10,000-page repositories. */
const MAX_ENTRIES = 30_000;

const cache = new Map<string, PageFacts>();

/** The git blob id of `text` (as UTF-8). */
export function blobId(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function keyOf(text: string, mdx: boolean): string {
  return `${mdx ? 'x' : 'm'}${blobId(text)}`;
}

export interface CachedFacts {
  key: string;
  facts: PageFacts | null;
}

/** The facts of `text` parsed as MDX or not, if a run in this process parsed the same blob. */
export function cachedFacts(text: string, mdx: boolean): CachedFacts {
  const key = keyOf(text, mdx);
  const facts = cache.get(key) ?? null;
  if (facts) {
    // Most recently used last, so the oldest entry is the first the map yields.
    cache.delete(key);
    cache.set(key, facts);
  }
  return { key, facts };
}

export function rememberFacts(key: string, facts: PageFacts): void {
  cache.delete(key);
  cache.set(key, facts);
  while (cache.size > MAX_ENTRIES) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** Forgets every entry (tests, and a benchmark's cold run). */
export function clearFactsCache(): void {
  cache.clear();
}

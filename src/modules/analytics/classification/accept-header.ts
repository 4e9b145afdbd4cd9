// Does an Accept header ask for Markdown before HTML? Parsed per RFC 9110 section 12.5.1: each
// media range may carry a weight `q` (default 1). Markdown is preferred when its weight beats
// HTML's; on equal weight, when text/markdown is listed first. Wildcards count for the type they
// cover but never make Markdown "preferred" on their own: `*/*` asks for anything, not Markdown.

import { GenerationalCache } from './generational-cache.ts';

interface MediaRange {
  type: string;
  q: number;
  position: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  let position = 0;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.split(';');
    const type = rawType?.trim().toLowerCase();
    if (!type) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q' && value !== undefined) {
        const parsed = Number.parseFloat(value.trim());
        if (Number.isFinite(parsed)) q = Math.min(1, Math.max(0, parsed));
      }
    }
    ranges.push({ type, q, position: position++ });
  }
  return ranges;
}

function weightOf(ranges: MediaRange[], types: readonly string[]): { q: number; position: number } | null {
  let best: { q: number; position: number } | null = null;
  for (const range of ranges) {
    if (!types.includes(range.type)) continue;
    if (best === null || range.q > best.q) best = { q: range.q, position: range.position };
  }
  return best;
}

const MARKDOWN_TYPES = ['text/markdown', 'text/x-markdown'] as const;

export function prefersMarkdown(accept: string | undefined): boolean {
  if (typeof accept !== 'string' || !accept.toLowerCase().includes('markdown')) return false;
  const ranges = parseAccept(accept);
  const markdown = weightOf(ranges, MARKDOWN_TYPES);
  if (markdown === null || markdown.q === 0) return false;
  const html =
    weightOf(ranges, ['text/html', 'application/xhtml+xml']) ??
    weightOf(ranges, ['text/*']) ??
    weightOf(ranges, ['*/*']);
  if (html === null) return true;
  if (markdown.q !== html.q) return markdown.q > html.q;
  return markdown.position < html.position;
}

// Clients send few distinct Accept headers, and parsing one per record showed in ingest
// profiles; values past this length are parsed every time so the cache's memory stays bounded.
const MAX_CACHED_ACCEPT_LENGTH = 512;
const preferences = new GenerationalCache<string, boolean>(1_000);

/** prefersMarkdown, remembered per header value. */
export function prefersMarkdownCached(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  if (accept.length > MAX_CACHED_ACCEPT_LENGTH) return prefersMarkdown(accept);
  const cached = preferences.get(accept);
  if (cached !== undefined) return cached;
  const prefers = prefersMarkdown(accept);
  preferences.set(accept, prefers);
  return prefers;
}

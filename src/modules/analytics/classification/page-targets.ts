// What the path and asset steps make of a URL or path, cached: a docs site's requests go to a
// few thousand pages, and parsing the same URL again (new URL, percent decoding, regular
// expressions) was a large share of the CPU ingestion spends per record.
//
// Two levels. In front, whole strings as sent, found without hashing them (string-front-table.ts):
// most requests repeat a URL exactly. Behind, the URL or path up to its first '?' or '#', so a
// new query string costs a lookup, not a parse. Query and fragment never change the verdict: an
// absolute URL's path ends at the first of them (and parsing the query or fragment cannot fail),
// a relative one is cut there, and trimming only touches the ends. The one fact that depends on
// the whole string, a length past MAX_RAW_LENGTH, concerns strings too long to be cached.

import type { ViewFormat } from '../../../contract/index.ts';
import { isAssetPath } from './asset-paths.ts';
import { GenerationalCache } from './generational-cache.ts';
import { MAX_RAW_LENGTH, normalisePath } from './normalise-path.ts';
import { StringFrontTable } from './string-front-table.ts';
import type { DropReason } from './types.ts';
import { viewFormatOf } from './view-format.ts';

export interface PageTarget {
  /** Why the path or asset step drops the request; null when it is a page view. */
  drop: DropReason | null;
  /** The normalised path ('' when dropped). */
  path: string;
  markdown: boolean;
  /** Whether the path holds NUL (percent decoding keeps %00 escaped, so it should never). */
  pathHasNul: boolean;
  /**
   * The view's format unless an Accept header prefers Markdown (view-format.ts): llms,
   * markdown for a `.md` path, else html. Worked out once per page instead of per record.
   */
  format: ViewFormat;
}

// Strings longer than this are worked out every time rather than kept: the memory of both levels
// stays bounded by their entries times this length, whatever clients send. Below MAX_RAW_LENGTH,
// so the one rule that looks at the whole string never meets the cache.
const MAX_CACHED_LENGTH = Math.min(512, MAX_RAW_LENGTH);
const whole = new StringFrontTable<PageTarget>(4_096);
const byPath = new GenerationalCache<string, PageTarget>(5_000);

function pageTarget(urlOrPath: string): PageTarget {
  const result = normalisePath(urlOrPath);
  if (!result.ok)
    return { drop: result.reason, path: '', markdown: false, pathHasNul: false, format: 'html' };
  return {
    drop: isAssetPath(result.path) ? 'asset' : null,
    path: result.path,
    markdown: result.markdown,
    pathHasNul: result.path.includes('\0'),
    format: viewFormatOf(result.path, result.markdown, undefined),
  };
}

/** Where the query or fragment begins: the first '?' or '#', or the length when neither. */
function queryOrFragmentStart(text: string): number {
  const query = text.indexOf('?');
  const fragment = text.indexOf('#');
  if (query === -1) return fragment === -1 ? text.length : fragment;
  return fragment === -1 || query < fragment ? query : fragment;
}

/**
 * A copy of a slice that does not keep its parent alive: V8 represents `slice` results as a
 * view into the parent string, and a cached key must not hold a whole URL with its query.
 * Concatenating makes a new string that slicing flattens into fresh memory.
 */
function detached(slice: string): string {
  return ` ${slice}`.slice(1);
}

/**
 * The path and asset steps' verdict on a record's url or path (the one the path step reads);
 * null when the string holds NUL, which record checks refuse. Only strings without NUL are
 * kept in front, so a caller that must check for NUL learns it here without a scan of its own.
 */
export function pageTargetOf(urlOrPath: string): PageTarget | null {
  const seen = whole.get(urlOrPath);
  if (seen !== undefined) return seen;
  if (urlOrPath.includes('\0')) return null;
  if (urlOrPath.length > MAX_CACHED_LENGTH) return pageTarget(urlOrPath);
  const end = queryOrFragmentStart(urlOrPath);
  const key = end === urlOrPath.length ? urlOrPath : urlOrPath.slice(0, end);
  let target = byPath.get(key);
  if (target === undefined) {
    target = pageTarget(urlOrPath);
    byPath.set(key === urlOrPath ? key : detached(key), target);
  }
  whole.set(urlOrPath, target);
  return target;
}

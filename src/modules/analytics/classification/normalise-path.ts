// Turns the URL or path of a request into the path a page view is counted under. Every spelling
// of one page must land on one path: `/guide/`, `/guide/index.html`, `/guide?x=1#top`,
// `//guide` and `/guide.md` all count for `/guide` (the last one flagged as Markdown).

import { decodePercentEscapes } from './percent-decode.ts';

export const MAX_PATH_LENGTH = 2048;
// A raw URL far longer than any path we could keep is refused before any work is spent on it.
export const MAX_RAW_LENGTH = MAX_PATH_LENGTH * 8;

export type NormalisedPath =
  | { ok: true; path: string; markdown: boolean }
  | { ok: false; reason: 'path_missing' | 'path_invalid' | 'path_too_long' };

const ABSOLUTE_URL = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/** The raw path of a URL or path, without query and fragment, still percent-encoded. */
export function rawPathOf(urlOrPath: string): string | null {
  if (ABSOLUTE_URL.test(urlOrPath)) {
    let url: URL;
    try {
      url = new URL(urlOrPath);
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.pathname;
  }
  let end = urlOrPath.length;
  const query = urlOrPath.indexOf('?');
  if (query !== -1) end = query;
  const fragment = urlOrPath.indexOf('#');
  if (fragment !== -1 && fragment < end) end = fragment;
  return urlOrPath.slice(0, end);
}

/** RFC 3986 section 5.2.4, on a path that already starts with '/'. */
function removeDotSegments(path: string): string {
  if (!path.includes('.')) return path;
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    if (segment === '.') {
      if (last) out.push('');
    } else if (segment === '..') {
      out.pop();
      if (last) out.push('');
    } else {
      out.push(segment);
    }
  }
  return `/${out.join('/')}`;
}

export function normalisePath(urlOrPath: string | undefined): NormalisedPath {
  if (urlOrPath === undefined || urlOrPath.trim() === '') return { ok: false, reason: 'path_missing' };
  if (urlOrPath.length > MAX_RAW_LENGTH) return { ok: false, reason: 'path_too_long' };
  const raw = rawPathOf(urlOrPath.trim());
  if (raw === null) return { ok: false, reason: 'path_invalid' };

  let path = decodePercentEscapes(raw);
  if (!path.startsWith('/')) path = `/${path}`;
  path = path.replace(/\/{2,}/g, '/');
  path = removeDotSegments(path);

  let markdown = false;
  if (path.length > 3 && path.toLowerCase().endsWith('.md') && !path.endsWith('/.md')) {
    markdown = true;
    path = path.slice(0, -3);
  }
  const lower = path.toLowerCase();
  for (const index of ['/index.html', '/index.htm', '/index']) {
    // `/index` alone only after stripping `.md` (`/x/index.md`); a page named `index` is kept.
    if (index === '/index' && !markdown) continue;
    if (lower.endsWith(index)) {
      path = path.slice(0, -index.length + 1);
      break;
    }
  }
  if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
  if (path.length > MAX_PATH_LENGTH) return { ok: false, reason: 'path_too_long' };
  return { ok: true, path, markdown };
}

// The format a view was served in (src/contract/view-formats.ts), from what the request shows:
// a `.md` path (the path step strips it and keeps the flag) or an Accept header preferring
// text/markdown over text/html is markdown; `/llms.txt` and `/llms-full.txt`, at the site's root
// or under a prefix (`/docs/llms.txt`), are llms; everything else is html. An explicit format
// sent with the record wins over all of these, and an MCP call is always mcp.
import type { ViewFormat } from '../../../contract/index.ts';
import { prefersMarkdownCached } from './accept-header.ts';

const LLMS_FILES = ['/llms.txt', '/llms-full.txt'] as const;

/** Whether a normalised path is an llms.txt file (any case). */
export function isLlmsPath(path: string): boolean {
  // Most paths have no extension: one comparison before any lower-casing.
  if (path.length < 9 || path.charCodeAt(path.length - 4) !== 46 /* . */) return false;
  const lower = path.toLowerCase();
  return LLMS_FILES.some((file) => lower.endsWith(file));
}

/**
 * A view's format from its normalised path, whether that path ended in `.md`, and its Accept
 * header. The llms files come first: `/llms.txt` asked for with Accept text/markdown is still
 * the llms file.
 */
export function viewFormatOf(path: string, markdownPath: boolean, accept: string | undefined): ViewFormat {
  if (isLlmsPath(path)) return 'llms';
  if (markdownPath) return 'markdown';
  return accept !== undefined && prefersMarkdownCached(accept) ? 'markdown' : 'html';
}

// How a view was served: the format every view records, and the bounds of an MCP tool-call
// record. Imports nothing at run time, so the client and the dashboard can use the values.

/**
 * html: a page (the default, and every view counted before formats were kept); markdown: a `.md`
 * path or an Accept header preferring text/markdown; llms: `/llms.txt` or `/llms-full.txt`; mcp:
 * a tool call to the docs site's MCP server.
 */
export const VIEW_FORMATS = ['html', 'markdown', 'llms', 'mcp'] as const;
export type ViewFormat = (typeof VIEW_FORMATS)[number];

export function isViewFormat(value: unknown): value is ViewFormat {
  return typeof value === 'string' && (VIEW_FORMATS as readonly string[]).includes(value);
}

/** The record kinds of the ingest API: a request to the docs site, or an MCP call. */
export const INGEST_RECORD_TYPES = ['view', 'mcp'] as const;
export type IngestRecordType = (typeof INGEST_RECORD_TYPES)[number];

/** Longest values an MCP record may carry, in characters. */
export const MCP_FIELD_LIMITS = { method: 64, tool: 128, clientName: 128, clientVersion: 64 } as const;

/** The MCP method a record without one is taken to be. */
export const DEFAULT_MCP_METHOD = 'tools/call';

/** The path an MCP record without one is counted under. */
export const DEFAULT_MCP_PATH = '/mcp';

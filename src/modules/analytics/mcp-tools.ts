// The MCP calls export: calls to the docs site's MCP server per tool, method and client over a
// range (hourly edges and whole days), with the totals and the most-called tools and clients,
// read through the store.
import { DEFAULT_VIEWS_LIMIT, MCP_SUMMARY_LIMIT, type McpToolReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { readPage } from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export async function exportMcpTools(
  db: Database,
  projectId: string,
  request: ViewsRequest,
): Promise<McpToolReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const read = await readPage(
    db,
    projectId,
    range,
    { limit: limit + 1, offset },
    { report: 'mcp-calls', summaryLimit: MCP_SUMMARY_LIMIT },
  );
  return {
    totals: { calls: read.calls },
    tools: read.byTool.map((t) => ({ tool: t.name, calls: t.calls })),
    clients: read.byClient.map((c) => ({ clientName: c.name, calls: c.calls })),
    calls: read.rows.slice(0, limit).map((r) => ({
      tool: r.tool,
      method: r.method,
      clientName: r.clientName,
      clientVersion: r.clientVersion,
      calls: r.calls,
    })),
    hasMore: read.rows.length > limit,
    range: reportedRange(range),
  };
}

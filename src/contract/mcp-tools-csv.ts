// The MCP calls export's CSV columns (cell rules in csv.ts). No run-time imports: the client loads it.
import type { CsvCell } from './csv.ts';
import type { McpToolReport } from './mcp-tools.ts';

export const MCP_TOOLS_CSV_COLUMNS = ['tool', 'method', 'clientName', 'clientVersion', 'calls'] as const;

/** One line of the MCP calls export, in MCP_TOOLS_CSV_COLUMNS order. */
export function mcpToolsCsvRow(row: McpToolReport['calls'][number]): CsvCell[] {
  return [row.tool, row.method, row.clientName, row.clientVersion, row.calls];
}

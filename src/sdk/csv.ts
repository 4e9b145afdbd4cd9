// CSV written by the client, by the contract's columns and cell rules (src/contract/csv.ts), the
// ones the server's CSV answers follow, so both give the same bytes for the same rows.
import {
  AGENTS_CSV_COLUMNS,
  type AgentsCsvFormats,
  agentsCsvColumns,
  agentsCsvRowFor,
  csvCell,
  csvLine,
  toCsv,
  usageCsvColumns,
  usageCsvRow,
  VIEWS_CSV_COLUMNS,
  viewsCsvColumns,
  viewsCsvRowFor,
} from '../contract/csv.ts';
import { MCP_TOOLS_CSV_COLUMNS, mcpToolsCsvRow } from '../contract/mcp-tools-csv.ts';
import type { ViewFormat } from '../contract/view-formats.ts';
import { VISITORS_CSV_COLUMNS, visitorsCsvRow } from '../contract/visitors-csv.ts';
import type { AgentRow, McpToolRow, PageViewRow, UsageReport, VisitorRow } from './types.ts';

export { AGENTS_CSV_COLUMNS, csvLine, MCP_TOOLS_CSV_COLUMNS, VIEWS_CSV_COLUMNS };

/** One cell: empty for null, numbers as they are, text quoted and formula-guarded as needed. */
export const csvField = csvCell;

/** The header line and one line per row; with a format filter, its column too: the server's bytes. */
export function viewsToCsv(
  rows: Iterable<PageViewRow>,
  asked: { format?: ViewFormat | undefined } = {},
): string {
  return toCsv(viewsCsvColumns(asked), mapRows(rows, viewsCsvRowFor(asked)));
}

export function visitorsToCsv(rows: Iterable<VisitorRow>): string {
  return toCsv(VISITORS_CSV_COLUMNS, mapRows(rows, visitorsCsvRow));
}

/** With a format filter or split (as asked of the export), their columns too: the server's bytes. */
export function agentsToCsv(rows: Iterable<AgentRow>, asked: AgentsCsvFormats = {}): string {
  return toCsv(agentsCsvColumns(asked), mapRows(rows, agentsCsvRowFor(asked)));
}

export function mcpToolsToCsv(rows: Iterable<McpToolRow>): string {
  return toCsv(MCP_TOOLS_CSV_COLUMNS, mapRows(rows, mcpToolsCsvRow));
}

function* mapRows<T, R>(rows: Iterable<T>, map: (row: T) => R): Iterable<R> {
  for (const row of rows) yield map(row);
}

/** The usage report's rows as CSV: the same bytes the server answers with Accept: text/csv. */
export function usageToCsv(report: Pick<UsageReport, 'groupBy' | 'rows'>): string {
  return toCsv(usageCsvColumns(report.groupBy), report.rows.map(usageCsvRow));
}

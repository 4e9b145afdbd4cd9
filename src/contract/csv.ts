// The CSV exports (the API's text/csv answers, the dashboard's downloads, the client's and the
// CLI's --csv): their columns and the cell rules, so every producer gives the same bytes for the
// same rows. RFC 4180: a header row, CRLF line ends, a field quoted when it holds a comma, a double
// quote, CR or LF (quotes doubled inside). A text cell that a spreadsheet would run as a formula
// (first character = + - @, tab or CR) gets a leading apostrophe, the usual guard against CSV
// injection: a path such as "/=HYPERLINK(...)" stays text when opened. Numbers are written as
// they are; they are never negative here. No run-time imports: the client loads this file.
import type { AgentReport, PageViewReport } from './analytics.ts';
import type { UsageGroup, UsageReport } from './usage.ts';
import type { ViewFormat } from './view-formats.ts';

export type CsvCell = string | number | null;

export const VIEWS_CSV_COLUMNS = ['path', 'human', 'ai', 'total'] as const;
export const AGENTS_CSV_COLUMNS = [
  'agent',
  'operator',
  'category',
  'verified',
  'unverified',
  'total',
] as const;

/** One line of the views export, in VIEWS_CSV_COLUMNS order. */
export function viewsCsvRow(row: PageViewReport['views'][number]): CsvCell[] {
  return [row.path, row.human, row.ai, row.total];
}

/**
 * The views export's columns for a request: VIEWS_CSV_COLUMNS, then `format` (the format the
 * counts are of) with a format filter. Without one, exactly VIEWS_CSV_COLUMNS.
 */
export function viewsCsvColumns(asked: { format?: ViewFormat | undefined } = {}): string[] {
  return [...VIEWS_CSV_COLUMNS, ...(asked.format !== undefined ? ['format'] : [])];
}

/** One line of the views export in viewsCsvColumns(asked) order. */
export function viewsCsvRowFor(asked: {
  format?: ViewFormat | undefined;
}): (row: PageViewReport['views'][number]) => CsvCell[] {
  return (row) => [...viewsCsvRow(row), ...(asked.format !== undefined ? [asked.format] : [])];
}

/** One line of the agents export, in AGENTS_CSV_COLUMNS order. */
export function agentsCsvRow(row: AgentReport['agents'][number]): CsvCell[] {
  return [row.agent, row.operator, row.category, row.verified, row.unverified, row.total];
}

/** The format filter and split of an agents export, as asked (docs/analytics-formats.md). */
export interface AgentsCsvFormats {
  format?: ViewFormat | undefined;
  split?: 'format' | undefined;
}

// VIEW_FORMATS' order, written out: this file has no run-time imports.
const FORMAT_COLUMNS = ['html', 'markdown', 'llms', 'mcp'] as const satisfies readonly ViewFormat[];

/**
 * The agents export's columns for a request: AGENTS_CSV_COLUMNS, then `format` (the filter the
 * counts are of) with a format filter, then one column per format with split=format. Without
 * either, exactly AGENTS_CSV_COLUMNS.
 */
export function agentsCsvColumns(asked: AgentsCsvFormats = {}): string[] {
  return [
    ...AGENTS_CSV_COLUMNS,
    ...(asked.format !== undefined ? ['format'] : []),
    ...(asked.split === 'format' ? FORMAT_COLUMNS : []),
  ];
}

/** One line of the agents export in agentsCsvColumns(asked) order. */
export function agentsCsvRowFor(
  asked: AgentsCsvFormats = {},
): (row: AgentReport['agents'][number]) => CsvCell[] {
  return (row) => [
    ...agentsCsvRow(row),
    ...(asked.format !== undefined ? [asked.format] : []),
    ...(asked.split === 'format' ? FORMAT_COLUMNS.map((format) => row.formats?.[format] ?? 0) : []),
  ];
}

/** The usage export's columns: the group's key (day, model or job) first. */
export function usageCsvColumns(groupBy: UsageGroup): string[] {
  return [
    groupBy,
    'calls',
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'costUsd',
    'unpricedCalls',
  ];
}

/** One line of the usage export, in usageCsvColumns order. */
export function usageCsvRow(row: UsageReport['rows'][number]): CsvCell[] {
  return [
    row.key,
    row.calls,
    row.inputTokens,
    row.outputTokens,
    row.cacheReadTokens,
    row.cacheWriteTokens,
    row.costUsd,
    row.unpricedCalls,
  ];
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One line: the cells joined by commas, ending in CRLF. */
export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The whole document: header, then one line per row, each ending in CRLF. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  let out = csvLine(header);
  for (const row of rows) out += csvLine(row);
  return out;
}

// CSV of the page-view export, written by the client (RFC 4180: comma-separated, CRLF line ends,
// a field with a comma, quote or line break is quoted and its quotes doubled).
import type { PageViewRow } from './types.ts';

export const VIEWS_CSV_COLUMNS = ['path', 'human', 'ai', 'total'] as const;

export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: (string | number)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The header line and one line per row. */
export function viewsToCsv(rows: Iterable<PageViewRow>): string {
  let out = csvLine([...VIEWS_CSV_COLUMNS]);
  for (const row of rows) out += csvLine([row.path, row.human, row.ai, row.total]);
  return out;
}

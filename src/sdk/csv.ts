// CSV written by the client, by the same rules as the server's CSV answers, so both give the same
// bytes for the same rows: RFC 4180 (comma-separated, CRLF line ends, a field with a comma, quote
// or line break is quoted and its quotes doubled), and a text cell a spreadsheet would run as a
// formula (first character = + - @, tab or CR) gets a leading apostrophe (CSV injection guard).
import type { AgentRow, PageViewRow } from './types.ts';

export const VIEWS_CSV_COLUMNS = ['path', 'human', 'ai', 'total'] as const;
export const AGENTS_CSV_COLUMNS = [
  'agent',
  'operator',
  'category',
  'verified',
  'unverified',
  'total',
] as const;

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(fields: (string | number | null)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The header line and one line per row. */
export function viewsToCsv(rows: Iterable<PageViewRow>): string {
  let out = csvLine([...VIEWS_CSV_COLUMNS]);
  for (const row of rows) out += csvLine([row.path, row.human, row.ai, row.total]);
  return out;
}

export function agentsToCsv(rows: Iterable<AgentRow>): string {
  let out = csvLine([...AGENTS_CSV_COLUMNS]);
  for (const r of rows) out += csvLine([r.agent, r.operator, r.category, r.verified, r.unverified, r.total]);
  return out;
}

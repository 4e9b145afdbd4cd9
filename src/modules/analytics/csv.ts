// CSV for spreadsheet users (RFC 4180): a header row, CRLF line ends, a field quoted when it holds
// a comma, a double quote, CR or LF (quotes doubled inside). A text cell that a spreadsheet would
// run as a formula (first character = + - @, tab or CR) gets a leading apostrophe, the
// usual guard against CSV injection: a path such as "/=HYPERLINK(...)" stays text when opened.
// Numbers are written as they are; they are never negative here.

export type CsvCell = string | number | null;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** The whole document: header, then one line per row, each ending in CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const lines = [header.map(csvCell).join(',')];
  for (const row of rows) lines.push(row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

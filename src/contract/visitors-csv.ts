// The visitors export's CSV columns (cell rules in csv.ts). No run-time imports: the client loads it.
import type { CsvCell } from './csv.ts';
import type { VisitorReport } from './visitors.ts';

export const VISITORS_CSV_COLUMNS = ['path', 'human', 'ai', 'total'] as const;

/** One line of the visitors export, in VISITORS_CSV_COLUMNS order. */
export function visitorsCsvRow(row: VisitorReport['visitors'][number]): CsvCell[] {
  return [row.path, row.human, row.ai, row.total];
}

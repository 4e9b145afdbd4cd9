// The referrals export's CSV columns (cell rules in csv.ts). No run-time imports: the client loads it.
import type { CsvCell } from './csv.ts';
import type { ReferralReport } from './referrals.ts';

export const REFERRALS_CSV_COLUMNS = ['assistant', 'operator', 'path', 'views'] as const;

/** One line of the referrals export, in REFERRALS_CSV_COLUMNS order. */
export function referralsCsvRow(row: ReferralReport['referrals'][number]): CsvCell[] {
  return [row.assistant, row.operator, row.path, row.views];
}

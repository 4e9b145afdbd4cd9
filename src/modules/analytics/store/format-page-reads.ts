// The format filter of /views: one page of paths counting only the views served in one format,
// with the range's totals of that format, from one snapshot. A stored format (markdown, llms,
// mcp) is read from the per-page format tables (migration 0030) alone; html is every view of a
// page the other formats do not claim, so it is the pages' views (the path levels) less those
// rows, summed per path over the range. Neither uses the ranking cache: the filtered lists are
// short next to all paths (stored formats), or read rarely enough (html) to be summed on the spot.
import type { Database } from '../../../db/database.ts';
import {
  selectFormatPageTotals,
  selectHtmlPathPage,
  selectStoredFormatPathPage,
} from './format-page-queries.ts';
import type { StoredFormat } from './format-sums.ts';
import type { HourRange } from './queries.ts';
import { splitRange } from './range-split.ts';
import type { PageWindow, PathPage } from './reads.ts';
import { beginSnapshotRead, selectTrafficTotals } from './report-queries.ts';
import { hourDaySpanParams, pathSpanParams } from './span-params.ts';
import { mergeStagedViews } from './staged-views.ts';

/**
 * The range's totals and one page of paths in `format` only (total descending, then path in byte
 * order; paths with no view in it are not listed). Bot views are in no format's page counts:
 * totals.bot is 0.
 */
export async function readFormatPathPage(
  db: Database,
  projectId: string,
  range: HourRange,
  page: PageWindow,
  format: StoredFormat | 'html',
): Promise<PathPage> {
  await mergeStagedViews(db);
  const split = splitRange(range, null);
  const spans = hourDaySpanParams(split);
  return db.transaction(async (tx) => {
    await beginSnapshotRead(tx);
    if (format !== 'html') {
      const totals = await selectFormatPageTotals(tx, projectId, format, spans);
      const rows = await selectStoredFormatPathPage(tx, projectId, format, spans, page);
      return { totals: { ...totals, bot: 0 }, rows };
    }
    const all = await selectTrafficTotals(tx, projectId, spans);
    const others = await selectFormatPageTotals(tx, projectId, null, spans);
    const rows = await selectHtmlPathPage(tx, projectId, pathSpanParams(split), page);
    return {
      totals: { human: Number(all.human) - others.human, ai: Number(all.ai) - others.ai, bot: 0 },
      rows,
    };
  });
}

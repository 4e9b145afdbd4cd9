// The AI-referrals export: human views referred by AI assistants, per assistant and page over a
// range (hourly edges and whole days), with the totals per assistant, read through the store.
import { DEFAULT_VIEWS_LIMIT, type ReferralReport } from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import { type AiReferrers, curatedAiReferrers } from './classification/ai-referrers.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { readPage } from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export async function exportReferrals(
  db: Database,
  projectId: string,
  request: ViewsRequest,
  referrers: AiReferrers = curatedAiReferrers(),
): Promise<ReferralReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const { byAssistant, rows } = await readPage(
    db,
    projectId,
    range,
    { limit: limit + 1, offset },
    { report: 'referrals' },
  );
  // An assistant dropped from the list keeps its counts, under its own name.
  const operatorOf = (name: string) => referrers.assistants.get(name)?.operator ?? '';
  byAssistant.sort((a, b) => b.views - a.views || (a.assistant < b.assistant ? -1 : 1));
  return {
    totals: { views: byAssistant.reduce((sum, a) => sum + a.views, 0) },
    assistants: byAssistant.map((a) => ({
      assistant: a.assistant,
      operator: operatorOf(a.assistant),
      views: a.views,
    })),
    referrals: rows.slice(0, limit).map((r) => ({
      assistant: r.assistant,
      operator: operatorOf(r.assistant),
      path: r.path,
      views: r.views,
    })),
    hasMore: rows.length > limit,
    range: reportedRange(range),
  };
}

// /app/projects/:projectId/analytics: the page, and its CSV downloads (every row of the range,
// read page by page through the same exports as the API, written by the API's CSV writer).
import type { FastifyInstance } from 'fastify';
import {
  AGENTS_CSV_COLUMNS,
  agentsCsvRow,
  type CsvCell,
  isViewFormat,
  MAX_VIEWS_LIMIT,
  toCsv,
  type ViewFormat,
  viewsCsvColumns,
  viewsCsvRowFor,
} from '../../../contract/index.ts';
import { AppError } from '../../../errors/app-error.ts';
import {
  type AgentCatalog,
  curatedAgentCatalog,
  exportAgents,
  exportMcpTools,
  exportPageViews,
  exportReferrals,
  exportTimeseries,
  exportUnrecognizedAgents,
  exportVisitors,
  type UnrecognizedAgentCounter,
} from '../../analytics/index.ts';
import { getProject } from '../../projects/index.ts';
import { dayRangeOf, lastDays } from '../analytics-range.ts';
import { type DashboardContext, frameOf } from '../context.ts';
import { sendPage } from '../respond.ts';
import { type AgentListInfo, type AnalyticsPage, analyticsPage } from '../views/analytics-view.ts';

type AnalyticsQuery = {
  Params: { projectId: string };
  Querystring: {
    from?: string;
    to?: string;
    interval?: string;
    page?: string;
    apage?: string;
    preset?: string;
    /** The top pages' format filter (GET .../views?format=); empty or absent: every view. */
    format?: string;
  };
};

/** The top pages' format filter as asked: null for every view, 'bad' for an unknown value. */
function formatOf(raw: unknown): ViewFormat | null | 'bad' {
  if (raw === undefined || raw === '') return null;
  return isViewFormat(raw) ? raw : 'bad';
}

export const TOP_PAGES_LIMIT = 25;
export const AGENTS_LIMIT = 10;
export const UNRECOGNIZED_LIMIT = 10;
/** The most-called MCP tools shown beside the formats. */
export const MCP_TOOLS_LIMIT = 5;
/** Hourly charts up to this many days; longer ranges are charted per day. */
const MAX_HOURLY_DAYS = 14;

function pageNumber(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.max(1, n);
}

export function registerAnalyticsPageRoutes(
  app: FastifyInstance,
  ctx: DashboardContext,
  options: {
    agentCatalog?: AgentCatalog;
    agentList?: () => AgentListInfo;
    unrecognized?: UnrecognizedAgentCounter;
  } = {},
): void {
  const { db } = ctx;
  const catalog = () => options.agentCatalog ?? curatedAgentCatalog();

  app.get<AnalyticsQuery>('/projects/:projectId/analytics', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const q = request.query;
    const preset = Number(q.preset);
    const parsed = [7, 30, 90].includes(preset)
      ? { ok: true as const, range: lastDays(preset) }
      : dayRangeOf(q);
    const range = parsed.range;
    let error: string | null = parsed.ok ? null : parsed.message;
    let interval: 'day' | 'hour' = q.interval === 'hour' ? 'hour' : 'day';
    if (interval === 'hour' && range.days > MAX_HOURLY_DAYS) {
      interval = 'day';
      error ??= `Hourly charts cover at most ${MAX_HOURLY_DAYS} days; this range is charted per day.`;
    }
    const asked = formatOf(q.format);
    const pagesFormat = asked === 'bad' ? null : asked;
    if (asked === 'bad')
      error ??= 'The format must be html, markdown, llms or mcp; the top pages count every view.';
    const pagesPage = pageNumber(q.page);
    const agentsPage = pageNumber(q.apage);
    const dates = { dateFrom: range.dateFrom, dateTo: range.dateTo };
    const data: AnalyticsPage = {
      range,
      interval,
      error,
      views: null,
      agents: null,
      series: null,
      pagesPage,
      pagesLimit: TOP_PAGES_LIMIT,
      pagesFormat,
      agentsPage,
      agentsLimit: AGENTS_LIMIT,
      agentList: options.agentList?.() ?? null,
    };
    try {
      data.views = await exportPageViews(db, project.id, {
        ...dates,
        limit: TOP_PAGES_LIMIT,
        offset: (pagesPage - 1) * TOP_PAGES_LIMIT,
        ...(pagesFormat === null ? {} : { format: pagesFormat }),
      });
      // The totals cards count every view, whatever the top pages are filtered by.
      if (pagesFormat !== null)
        data.viewTotals = (await exportPageViews(db, project.id, { ...dates, limit: 1 })).totals;
      data.agents = await exportAgents(
        db,
        project.id,
        { ...dates, limit: AGENTS_LIMIT, offset: (agentsPage - 1) * AGENTS_LIMIT },
        catalog(),
      );
      data.series = await exportTimeseries(db, project.id, { ...dates, interval, split: 'format' });
      const mcp = await exportMcpTools(db, project.id, { ...dates, limit: 1 });
      data.mcpCalls = { calls: mcp.totals.calls, tools: mcp.tools.slice(0, MCP_TOOLS_LIMIT) };
      data.visitors = (await exportVisitors(db, project.id, { ...dates, limit: 1 })).totals;
      data.referrals = (await exportReferrals(db, project.id, { ...dates, limit: 1 })).totals.views;
      await options.unrecognized?.flush();
      data.unrecognized = await exportUnrecognizedAgents(db, project.id, {
        limit: UNRECOGNIZED_LIMIT,
        offset: 0,
      });
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      data.error = e.message;
    }
    return sendPage(
      reply,
      analyticsPage(frameOf(request, { title: `Analytics · ${project.name}` }), project, data),
    );
  });

  const csvDownload = (kind: 'views' | 'agents') =>
    app.get<AnalyticsQuery>(`/projects/:projectId/analytics/${kind}.csv`, async (request, reply) => {
      const project = await getProject(db, request.params.projectId);
      const parsed = dayRangeOf(request.query);
      const dates = { dateFrom: parsed.range.dateFrom, dateTo: parsed.range.dateTo };
      // The views download takes the top pages' format filter (an unknown one: every view).
      const asked = kind === 'views' ? formatOf(request.query.format) : null;
      const format = asked === 'bad' || asked === null ? {} : { format: asked };
      const rows: CsvCell[][] = [];
      for (let offset = 0; ; offset += MAX_VIEWS_LIMIT) {
        const paging = { ...dates, limit: MAX_VIEWS_LIMIT, offset };
        if (kind === 'views') {
          const report = await exportPageViews(db, project.id, { ...paging, ...format });
          rows.push(...report.views.map(viewsCsvRowFor(format)));
          if (!report.hasMore) break;
        } else {
          const report = await exportAgents(db, project.id, paging, catalog());
          rows.push(...report.agents.map(agentsCsvRow));
          if (!report.hasMore) break;
        }
      }
      const header = kind === 'views' ? viewsCsvColumns(format) : AGENTS_CSV_COLUMNS;
      const named = 'format' in format ? `-${format.format}` : '';
      const file = `${project.id}-${kind}${named}-${parsed.range.from}-to-${parsed.range.to}.csv`;
      return reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="${file}"`)
        .header('cache-control', 'no-store')
        .send(toCsv(header, rows));
    });
  csvDownload('views');
  csvDownload('agents');
}

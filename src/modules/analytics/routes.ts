// The /v1 analytics export routes. The contract fixes the page-view export (GET .../views); the
// agents and time-series exports and CSV answers are additive (docs/analytics-export.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  type AgentReport,
  AgentReportSchema,
  AgentsQuerySchema,
  agentsCsvColumns,
  agentsCsvRowFor,
  type CsvCell,
  MAX_TIMESERIES_BUCKETS,
  MAX_VIEWS_LIMIT,
  MCP_TOOLS_CSV_COLUMNS,
  type McpToolReport,
  McpToolReportSchema,
  mcpToolsCsvRow,
  type PageViewReport,
  PageViewReportSchema,
  PageViewsQuerySchema,
  ProjectParamsSchema,
  REFERRALS_CSV_COLUMNS,
  type ReferralReport,
  ReferralReportSchema,
  referralsCsvRow,
  TimeseriesQuerySchema,
  type TimeseriesReport,
  TimeseriesReportSchema,
  toCsv,
  type UnrecognizedAgentReportBody,
  UnrecognizedAgentReportSchema,
  UnrecognizedQuerySchema,
  VISITORS_CSV_COLUMNS,
  ViewsQuerySchema,
  type VisitorReport,
  VisitorReportSchema,
  viewsCsvColumns,
  viewsCsvRowFor,
  visitorsCsvRow,
} from '../../contract/index.ts';
import type { App, AppContext } from '../../http/context.ts';
import { errorResponses } from '../../http/openapi.ts';
import { type AgentCatalog, curatedAgentCatalog } from './agent-catalog.ts';
import { type AgentsRequest, exportAgents } from './agents.ts';
import { curatedAiReferrers } from './classification/ai-referrers.ts';
import { exportMcpTools } from './mcp-tools.ts';
import { exportFormat } from './negotiate.ts';
import { exportReferrals } from './referrals.ts';
import { exportTimeseries } from './timeseries.ts';
import { exportUnrecognizedAgents, type UnrecognizedAgentCounter } from './unrecognized-agents.ts';
import { exportPageViews, type ViewsRequest } from './views.ts';
import { exportVisitors } from './visitors.ts';

export interface AnalyticsRouteOptions {
  /** Operator and category of each agent; defaults to the curated list (data/ai-agents.json). */
  agentCatalog?: AgentCatalog;
  /** The process's pending unknown-agent counts, written before the report is read. */
  unrecognized?: UnrecognizedAgentCounter;
}

const security = [{ bearerAuth: [] }];
const tags = ['analytics'];
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

const PAGING = `dateFrom is inclusive and dateTo exclusive; an omitted bound is unbounded. Counts are kept per UTC hour: a bound inside an hour widens the range to that whole hour, and range in the answer says which hours were counted. Page with limit (1 to ${MAX_VIEWS_LIMIT}) and offset while hasMore is true.`;
const CSV_NOTE =
  'With "Accept: text/csv" the same page comes as CSV (RFC 4180, header row; text cells starting with = + - @ get a leading apostrophe); a Link header with rel="next" gives the next page while there is one.';

/** JSON, or the same rows as CSV, in one 200 response described for OpenAPI. */
function jsonOrCsv(ref: string, description: string): Record<number, unknown> {
  return {
    200: {
      description,
      content: {
        'application/json': { schema: Type.Unsafe({ $ref: `${ref}#` }) },
        'text/csv': { schema: Type.String({ description: 'The same page as CSV, header row first.' }) },
      },
    },
  };
}

/** The request's own URL with offset moved on by limit: the next page, as a relative reference. */
function nextPageLink(request: FastifyRequest, limit: number, offset: number): string {
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set('offset', String(offset + limit));
  return `<${url.pathname}${url.search}>; rel="next"`;
}

function sendCsv(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { limit: number; offset: number; hasMore: boolean },
  file: string,
  header: readonly string[],
  rows: readonly (readonly CsvCell[])[],
): string {
  reply.type(CSV_TYPE).header('content-disposition', `attachment; filename="${file}"`);
  if (page.hasMore) reply.header('link', nextPageLink(request, page.limit, page.offset));
  return toCsv(header, rows);
}

export function registerAnalyticsRoutes(
  app: App,
  context: AppContext,
  options: AnalyticsRouteOptions = {},
): void {
  const { db } = context;
  const catalog = options.agentCatalog ?? curatedAgentCatalog();
  // Read per request: a synced AI-referrer version replaces the context's list.
  const referrers = () => context.classification?.referrers ?? curatedAiReferrers();
  app.addSchema(PageViewReportSchema);
  app.addSchema(AgentReportSchema);
  app.addSchema(TimeseriesReportSchema);
  app.addSchema(UnrecognizedAgentReportSchema);
  app.addSchema(VisitorReportSchema);
  app.addSchema(ReferralReportSchema);
  app.addSchema(McpToolReportSchema);

  app.get(
    '/v1/analytics/:projectId/agents/unrecognized',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Export user agents the AI-agent list does not know',
        description: `Views from user agents that no AI-agent list entry names but that look automated (isbot recognises them, they call themselves bot, agent, AI, GPT, LLM, crawler..., or they carry no browser engine), per normalised product token and class (bot or human), counted since they were first seen: the new AI agents to add with \`docwright agents sync\`. Counts reach the report within seconds of ingestion. Page with limit (1 to ${MAX_VIEWS_LIMIT}) and offset while hasMore is true. A read or admin key is needed.`,
        params: ProjectParamsSchema,
        querystring: UnrecognizedQuerySchema,
        response: {
          200: Type.Unsafe<UnrecognizedAgentReportBody>({
            $ref: 'UnrecognizedAgentReport#',
            description: 'The unrecognized agents.',
          }),
          ...errorResponses(),
        },
      },
    },
    async (request): Promise<UnrecognizedAgentReportBody> => {
      await options.unrecognized?.flush();
      const { limit = 50, offset = 0 } = request.query;
      return exportUnrecognizedAgents(db, request.params.projectId, { limit, offset });
    },
  );
  // The same URL answers JSON or CSV: shared caches must key on Accept.
  const varyOnAccept = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'Accept');
  };

  // The paged exports: one URL answers a page as JSON, or as CSV (Accept: text/csv) with a Link
  // to the next page; each is the same route but for its words, schemas and rows.
  const pagedReport = <Report extends { hasMore: boolean }>(report: {
    name: 'views' | 'visitors' | 'referrals' | 'agents' | 'mcp-tools';
    summary: string;
    description: string;
    querystring: TSchema;
    schemaRef: string;
    answer: string;
    run: (projectId: string, query: ViewsRequest) => Promise<Report>;
    csv: {
      /** The header; a function when the request's options add columns (the agents' formats). */
      columns: readonly string[] | ((query: ViewsRequest) => readonly string[]);
      rows: (report: Report, query: ViewsRequest) => readonly (readonly CsvCell[])[];
    };
  }) =>
    app.get(
      `/v1/analytics/:projectId/${report.name}`,
      {
        config: { access: 'read' },
        onRequest: varyOnAccept,
        schema: {
          tags,
          security,
          summary: report.summary,
          description: `${report.description} ${CSV_NOTE} A read or admin key is needed.`,
          params: ProjectParamsSchema,
          querystring: report.querystring,
          response: { ...jsonOrCsv(report.schemaRef, report.answer), ...errorResponses() },
        },
      },
      async (request, reply): Promise<Report | string> => {
        // The schema above validated the query (the paged exports' shared parameters).
        const query = request.query as ViewsRequest;
        const { projectId } = request.params as { projectId: string };
        const answer = await report.run(projectId, query);
        if (exportFormat(request.headers.accept) === 'json') return answer;
        const { limit = 0, offset = 0 } = query;
        return sendCsv(
          request,
          reply,
          { limit, offset, hasMore: answer.hasMore },
          `${report.name}.csv`,
          typeof report.csv.columns === 'function' ? report.csv.columns(query) : report.csv.columns,
          report.csv.rows(answer, query),
        );
      },
    );

  pagedReport<PageViewReport>({
    name: 'views',
    summary: 'Export page views, human and AI',
    description: `Site-wide totals and per-page counts over a date range, each split into human readers and AI agents (non-AI bots are in neither). format counts only the views served in that format (html, markdown, llms, mcp): the totals and every page hold that format's views, and pages with none are not listed; in CSV, format adds a format column. ${PAGING} views are ordered by total descending, then path ascending.`,
    querystring: PageViewsQuerySchema,
    schemaRef: 'PageViewReport',
    answer: 'The page view report.',
    run: (projectId, query) => exportPageViews(db, projectId, query),
    csv: {
      columns: (query) => viewsCsvColumns(query),
      rows: (report, query) => report.views.map(viewsCsvRowFor(query)),
    },
  });

  pagedReport<VisitorReport>({
    name: 'visitors',
    summary: 'Export distinct visitors, human and AI',
    description: `Approximate distinct visitors, site-wide and per page, over a date range, each split into human readers and AI agents; total is the union (total ≤ human + ai). A visitor is a keyed hash of IP address and user agent (for AI agents, of the IP address alone) with a salt that changes every UTC day, so a reader on two days counts twice over a range spanning both. Counts are exact up to 2048 visitors per page and bucket, then estimated (HyperLogLog, about 2% at p99); see docs/analytics-visitors.md. ${PAGING} visitors are ordered by total descending, then path ascending.`,
    querystring: ViewsQuerySchema,
    schemaRef: 'VisitorReport',
    answer: 'The distinct visitor report.',
    run: (projectId, query) => exportVisitors(db, projectId, query),
    csv: { columns: VISITORS_CSV_COLUMNS, rows: (report) => report.visitors.map(visitorsCsvRow) },
  });

  pagedReport<ReferralReport>({
    name: 'referrals',
    summary: 'Export human views referred by AI assistants',
    description: `Human views whose referrer host or utm_source names an AI assistant (ChatGPT, Perplexity, Claude, Gemini, Copilot... as listed in data/ai-referrers.json), per assistant and page, with the totals per assistant. These views stay human in /views. Only the assistant is kept, never the referrer. ${PAGING} referrals are ordered by views descending, then assistant and path.`,
    querystring: ViewsQuerySchema,
    schemaRef: 'ReferralReport',
    answer: 'The AI referral report.',
    run: (projectId, query) => exportReferrals(db, projectId, query, referrers()),
    csv: { columns: REFERRALS_CSV_COLUMNS, rows: (report) => report.referrals.map(referralsCsvRow) },
  });

  pagedReport<AgentReport>({
    name: 'agents',
    summary: 'Export AI-agent views, verified and unverified',
    description: `AI views per agent over a date range, with the agent's operator and category, how many views were verified (published IP ranges or Web Bot Auth) and, with split=format, how they split by format (html, markdown, llms, mcp); format counts only the views served in that format; in CSV, format adds a format column and split=format the columns html, markdown, llms and mcp. ${PAGING} agents are ordered by total descending, then agent ascending.`,
    querystring: AgentsQuerySchema,
    schemaRef: 'AgentReport',
    answer: 'The AI-agent report.',
    run: (projectId, query) => exportAgents(db, projectId, query as AgentsRequest, catalog, referrers()),
    csv: {
      columns: (query) => agentsCsvColumns(query as AgentsRequest),
      rows: (report, query) => report.agents.map(agentsCsvRowFor(query as AgentsRequest)),
    },
  });

  pagedReport<McpToolReport>({
    name: 'mcp-tools',
    summary: "Export calls to the docs site's MCP server per tool and client",
    description: `Calls sent to the ingest API as records of type mcp, per tool, MCP method and client (name and version), with the range's total and the most-called tools and clients. Each call is also a view with format mcp in /timeseries and /agents. ${PAGING} calls are ordered by calls descending, then tool, method, client name and version.`,
    querystring: ViewsQuerySchema,
    schemaRef: 'McpToolReport',
    answer: 'The MCP calls report.',
    run: (projectId, query) => exportMcpTools(db, projectId, query),
    csv: { columns: MCP_TOOLS_CSV_COLUMNS, rows: (report) => report.calls.map(mcpToolsCsvRow) },
  });

  app.get(
    '/v1/analytics/:projectId/timeseries',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Export human, AI and bot views per hour or day',
        description: `Views per UTC hour or day (interval), split into human, AI and non-AI bot traffic, and, with split=format, the range's views per format (html, markdown, llms, mcp); format counts only the views served in that format. Every bucket of the range is listed, empty ones with zeros, at most ${MAX_TIMESERIES_BUCKETS} (400 too_many_buckets beyond). dateFrom is inclusive and dateTo exclusive, both widened outward to whole buckets; an omitted bound is the first or last bucket with views. A read or admin key is needed.`,
        params: ProjectParamsSchema,
        querystring: TimeseriesQuerySchema,
        response: {
          200: Type.Unsafe<TimeseriesReport>({ $ref: 'TimeseriesReport#', description: 'The time series.' }),
          ...errorResponses(),
        },
      },
    },
    async (request) => exportTimeseries(db, request.params.projectId, request.query),
  );
}

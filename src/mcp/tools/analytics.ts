// The analytics tools: the /v1 exports (page views, AI agents, time series, MCP calls) as JSON, calling the
// analytics module's export functions as those routes do. One page per call, as the API answers.
import {
  exportAgents,
  exportMcpTools,
  exportPageViews,
  exportReferrals,
  exportTimeseries,
  exportVisitors,
} from '../../modules/analytics/index.ts';
import { defineTool, type McpTool, READ_ONLY } from '../tool.ts';
import {
  AgentsInput,
  AgentsOutput,
  McpToolsInput,
  McpToolsOutput,
  ReferralsInput,
  ReferralsOutput,
  TimeseriesInput,
  TimeseriesOutput,
  ViewsInput,
  ViewsOutput,
  VisitorsInput,
  VisitorsOutput,
} from '../tool-schemas.ts';

const RANGE =
  'dateFrom is inclusive and dateTo exclusive (UTC); an omitted bound is unbounded; counts are kept per UTC hour, and range in the answer says which hours were counted. Page with limit and offset while hasMore is true.';

const viewsTool = defineTool({
  name: 'get_page_views',
  title: 'Page views, human and AI',
  description: `Site-wide totals and per-page counts over a date range, each split into human readers and AI agents (non-AI bots are in neither), ordered by total descending. ${RANGE} Same as GET /v1/analytics/{projectId}/views.`,
  access: 'read',
  input: ViewsInput,
  output: ViewsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportPageViews(context.db, context.projectId, args) };
  },
});

const agentsTool = defineTool({
  name: 'get_ai_agents',
  title: 'AI-agent views, verified and unverified',
  description: `AI views per agent (GPTBot, ClaudeBot, ...) over a date range, with the agent's operator and category and how many views were verified (published IP ranges or Web Bot Auth). format counts only views served as html, markdown (.md or Accept: text/markdown), llms (llms.txt) or mcp (MCP calls); split: "format" adds each agent's views per format. ${RANGE} Same as GET /v1/analytics/{projectId}/agents.`,
  access: 'read',
  input: AgentsInput,
  output: AgentsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportAgents(context.db, context.projectId, args, context.agentCatalog) };
  },
});

const timeseriesTool = defineTool({
  name: 'get_traffic_timeseries',
  title: 'Human, AI and bot views over time',
  description:
    'Views per UTC hour or day (interval), split into human, AI and non-AI bot traffic; every bucket of the range is listed, empty ones with zeros (at most 2400 buckets). format counts only views served as html, markdown, llms or mcp; split: "format" adds the range\'s views per format. Same as GET /v1/analytics/{projectId}/timeseries.',
  access: 'read',
  input: TimeseriesInput,
  output: TimeseriesOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportTimeseries(context.db, context.projectId, args) };
  },
});

const visitorsTool = defineTool({
  name: 'get_visitors',
  title: 'Distinct visitors, human and AI',
  description: `Approximate distinct visitors site-wide and per page over a date range, split into human readers and AI agents; total is the union (total ≤ human + ai). Visitor ids rotate every UTC day, so a reader on two days counts twice over a range spanning both; an AI agent's requests from one IP address are one visitor. ${RANGE} Same as GET /v1/analytics/{projectId}/visitors.`,
  access: 'read',
  input: VisitorsInput,
  output: VisitorsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportVisitors(context.db, context.projectId, args) };
  },
});

const referralsTool = defineTool({
  name: 'get_ai_referrals',
  title: 'Readers sent by AI assistants',
  description: `Human views that arrived from an AI assistant's answer (ChatGPT, Perplexity, Claude, Gemini, Copilot, ...: by referrer host or utm_source), per assistant and per page, over a date range; they also count as human in get_page_views. ${RANGE} Same as GET /v1/analytics/{projectId}/referrals.`,
  access: 'read',
  input: ReferralsInput,
  output: ReferralsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportReferrals(context.db, context.projectId, args) };
  },
});

const mcpToolsTool = defineTool({
  name: 'get_mcp_tool_calls',
  title: "Calls to the docs site's MCP server",
  description: `Calls to the docs site's own MCP server (sent to the ingest API as records of type mcp) per tool, MCP method and client name and version, with the range's total and the most-called tools and clients. ${RANGE} Same as GET /v1/analytics/{projectId}/mcp-tools.`,
  access: 'read',
  input: McpToolsInput,
  output: McpToolsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportMcpTools(context.db, context.projectId, args) };
  },
});

export const ANALYTICS_TOOLS: readonly McpTool[] = [
  viewsTool,
  visitorsTool,
  referralsTool,
  agentsTool,
  timeseriesTool,
  mcpToolsTool,
];

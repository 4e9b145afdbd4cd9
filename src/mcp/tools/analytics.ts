// The analytics tools: the /v1 exports (page views, AI agents, time series) as JSON, calling the
// analytics module's export functions as those routes do. One page per call, as the API answers.
import { exportAgents, exportPageViews, exportTimeseries } from '../../modules/analytics/index.ts';
import { defineTool, type McpTool, READ_ONLY } from '../tool.ts';
import {
  AgentsInput,
  AgentsOutput,
  TimeseriesInput,
  TimeseriesOutput,
  ViewsInput,
  ViewsOutput,
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
  description: `AI views per agent (GPTBot, ClaudeBot, ...) over a date range, with the agent's operator and category and how many views were verified (published IP ranges or Web Bot Auth). ${RANGE} Same as GET /v1/analytics/{projectId}/agents.`,
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
    'Views per UTC hour or day (interval), split into human, AI and non-AI bot traffic; every bucket of the range is listed, empty ones with zeros (at most 2400 buckets). Same as GET /v1/analytics/{projectId}/timeseries.',
  access: 'read',
  input: TimeseriesInput,
  output: TimeseriesOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportTimeseries(context.db, context.projectId, args) };
  },
});

export const ANALYTICS_TOOLS: readonly McpTool[] = [
  viewsTool,
  agentsTool,
  timeseriesTool,
  // The visitors export (being built separately) joins here as get_visitors, calling its
  // service function from src/modules/analytics/index.ts, when it lands.
];

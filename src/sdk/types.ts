// The request and response shapes of the API: Static<> types of the contract's TypeBox schemas,
// the ones the server validates with. Every import here is `import type`: type stripping erases
// them, so at run time the client loads neither the schemas nor typebox
// (test/sdk/isolation.test.ts checks both).
import type { Static } from 'typebox';
import type {
  AgentReportSchema,
  AgentsQuerySchema,
  AutomationCreateBodySchema,
  AutomationRunListSchema,
  AutomationRunSchema,
  AutomationSchema,
  AutomationUpdateBodySchema,
  ErrorBody,
  ErrorDetail,
  JobChecksSchema,
  JobCiSchema,
  JobEventSchema,
  JobFailureCode,
  JobListSchema,
  JobSchema,
  JobStatusSchema,
  McpToolReportSchema,
  PageViewReportSchema,
  PromptBodySchema,
  TimeseriesQuerySchema,
  TimeseriesReportSchema,
  UsageQuerySchema,
  UsageReportSchema,
  ViewsQuerySchema,
  VisitorReportSchema,
} from '../contract/index.ts';

/** An agent job: the contract's fields (id, status, source, model, prLink, createdAt, archivedAt) and the additive ones. */
export type Job = Static<typeof JobSchema>;
/** active | completed | archived | failed */
export type JobStatus = Static<typeof JobStatusSchema>;
/** One page of GET /v2/agent/{projectId}/jobs. */
export type JobList = Static<typeof JobListSchema>;
/** The body of job creation and of a follow-up message. */
export type PromptBody = Static<typeof PromptBodySchema>;
/** A job's last docs check: framework, passed, the problems the job introduced. */
export type JobChecks = Static<typeof JobChecksSchema>;
/** One introduced problem of JobChecks: code, file, line, message, hint. */
export type DocsProblem = JobChecks['introduced'][number];
/** The CI watch of a job's pull request: state, the checks last seen, follow-ups sent. */
export type JobCi = Static<typeof JobCiSchema>;
/** One event of a job (SSE data, or an item of the JSON fallback). */
export type JobEvent = Static<typeof JobEventSchema>;

/** The page-view export: totals, one page of views, hasMore, and the hours counted. */
export type PageViewReport = Static<typeof PageViewReportSchema>;
/** One row of PageViewReport.views. */
export type PageViewRow = PageViewReport['views'][number];
export type PageViewTotals = PageViewReport['totals'];
/** Query parameters of GET /v1/analytics/{projectId}/views. */
export type ViewsQuery = Static<typeof ViewsQuerySchema>;

/** Approximate distinct visitors: totals, one page of paths, hasMore, and the hours counted. */
export type VisitorReport = Static<typeof VisitorReportSchema>;
/** One row of VisitorReport.visitors. */
export type VisitorRow = VisitorReport['visitors'][number];

/** AI views per agent: totals (verified, unverified), one page of agents, hasMore, range. */
export type AgentReport = Static<typeof AgentReportSchema>;
export type AgentRow = AgentReport['agents'][number];
/** Query parameters of GET /v1/analytics/{projectId}/agents. */
export type AgentsQuery = Static<typeof AgentsQuerySchema>;
/** How a view was served: html, markdown, llms or mcp. */
export type { ViewFormat } from '../contract/view-formats.ts';
/** MCP calls per tool, method and client: totals, tools, clients, one page of calls, range. */
export type McpToolReport = Static<typeof McpToolReportSchema>;
/** One row of McpToolReport.calls. */
export type McpToolRow = McpToolReport['calls'][number];
/** Human, AI and bot views per hour or day. */
export type TimeseriesReport = Static<typeof TimeseriesReportSchema>;
export type TimeseriesBucket = TimeseriesReport['buckets'][number];
/** Query parameters of GET /v1/analytics/{projectId}/timeseries. */
export type TimeseriesQuery = Static<typeof TimeseriesQuerySchema>;

/** What agent jobs cost, per day, model or job (GET /v2/agent/{projectId}/usage). */
export type UsageReport = Static<typeof UsageReportSchema>;
/** One row of UsageReport.rows. */
export type UsageRow = UsageReport['rows'][number];
/** Query parameters of GET /v2/agent/{projectId}/usage. */
export type UsageQuery = Static<typeof UsageQuerySchema>;

/** Why a failed job failed (job.error.code): cancelled, model_not_configured, pr_failed, ... */
/** The body of every 4xx/5xx answer, and one entry of its details. */
export type { ErrorBody, ErrorDetail, JobFailureCode };

/** An automation: one trigger, a prompt template, limits (triggerSecret only when just made). */
export type Automation = Static<typeof AutomationSchema>;
/** The body of POST /v2/automations/{projectId}. */
export type AutomationCreateBody = Static<typeof AutomationCreateBodySchema>;
/** The body of PATCH /v2/automations/{projectId}/{automationId}. */
export type AutomationUpdateBody = Static<typeof AutomationUpdateBodySchema>;
/** One run of an automation: its trigger, its job (if any) and why it was skipped. */
export type AutomationRun = Static<typeof AutomationRunSchema>;
/** One page of GET /v2/automations/{projectId}/{automationId}/runs. */
export type AutomationRunList = Static<typeof AutomationRunListSchema>;

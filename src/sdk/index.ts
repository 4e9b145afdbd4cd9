// docwright/client: the typed client of the docwright API. Fetch-based, with no Node-only imports,
// so it runs in Node 22+, Deno, Bun and browsers. See docs/client.md.

// Run-time values of the contract come from its import-free files, so the client loads no package.
export { JOB_EVENT_TYPES, type JobEventType } from '../contract/job-events.ts';
export { FINAL_JOB_STATUSES, isFinalStatus } from '../contract/job-statuses.ts';
export { VIEW_FORMATS } from '../contract/view-formats.ts';
export {
  type AgentsOptions,
  type AllAgentsOptions,
  type AllViewsOptions,
  type CallOptions,
  type CreateJobOptions,
  DocwrightClient,
  type DocwrightClientOptions,
  type FormatOptions,
  type JobsIteratorOptions,
  type ListJobsOptions,
  type MergedAgentReport,
  type MergedMcpToolReport,
  type MergedViewsReport,
  type MergedVisitorReport,
  type TimeseriesOptions,
  type UsageOptions,
  type ViewsOptions,
} from './client.ts';
export {
  AGENTS_CSV_COLUMNS,
  agentsToCsv,
  csvField,
  csvLine,
  MCP_TOOLS_CSV_COLUMNS,
  mcpToolsToCsv,
  usageToCsv,
  VIEWS_CSV_COLUMNS,
  viewsToCsv,
} from './csv.ts';
export {
  AuthenticationError,
  BadRequestError,
  type ClientErrorCode,
  ConflictError,
  DocwrightError,
  DocwrightNetworkError,
  DocwrightTimeoutError,
  type ErrorCode,
  hasCode,
  type KnownErrorCode,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  UnprocessableEntityError,
} from './errors.ts';
export type { StreamJobEventsOptions } from './job-events.ts';
export { type SseMessage, SseParser } from './sse.ts';
export { parseRetryAfter } from './transport.ts';
export type {
  AgentReport,
  AgentRow,
  AgentsQuery,
  Automation,
  AutomationCreateBody,
  AutomationRun,
  AutomationRunList,
  AutomationUpdateBody,
  DocsProblem,
  ErrorBody,
  ErrorDetail,
  Job,
  JobChecks,
  JobCi,
  JobEvent,
  JobFailureCode,
  JobList,
  JobStatus,
  McpToolReport,
  McpToolRow,
  PageViewReport,
  PageViewRow,
  PageViewTotals,
  PromptBody,
  TimeseriesBucket,
  TimeseriesQuery,
  TimeseriesReport,
  UsageQuery,
  UsageReport,
  UsageRow,
  ViewFormat,
  ViewsQuery,
  VisitorReport,
  VisitorRow,
} from './types.ts';
export type { WaitForJobOptions } from './wait-for-job.ts';

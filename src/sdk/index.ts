// docwright/client: the typed client of the docwright API. Fetch-based, with no Node-only imports,
// so it runs in Node 22+, Deno, Bun and browsers. See docs/client.md.
export {
  type AllViewsOptions,
  type CallOptions,
  type CreateJobOptions,
  DocwrightClient,
  type DocwrightClientOptions,
  type JobsIteratorOptions,
  type ListJobsOptions,
  type MergedAgentReport,
  type MergedViewsReport,
  type TimeseriesOptions,
  type ViewsOptions,
} from './client.ts';
export { AGENTS_CSV_COLUMNS, agentsToCsv, csvField, csvLine, VIEWS_CSV_COLUMNS, viewsToCsv } from './csv.ts';
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
export {
  type AgentReport,
  type AgentRow,
  type AgentsQuery,
  type ErrorBody,
  type ErrorDetail,
  FINAL_JOB_STATUSES,
  isFinalStatus,
  type Job,
  type JobEvent,
  type JobFailureCode,
  type JobList,
  type JobStatus,
  type PageViewReport,
  type PageViewRow,
  type PageViewTotals,
  type PromptBody,
  type TimeseriesBucket,
  type TimeseriesQuery,
  type TimeseriesReport,
  type ViewsQuery,
} from './types.ts';
export type { WaitForJobOptions } from './wait-for-job.ts';

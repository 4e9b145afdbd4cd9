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
  type MergedViewsReport,
  type ViewsOptions,
} from './client.ts';
export { csvField, csvLine, VIEWS_CSV_COLUMNS, viewsToCsv } from './csv.ts';
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
  type ErrorBody,
  type ErrorDetail,
  FINAL_JOB_STATUSES,
  isFinalStatus,
  type Job,
  type JobEvent,
  type JobList,
  type JobStatus,
  type PageViewReport,
  type PageViewRow,
  type PageViewTotals,
  type PromptBody,
  type ViewsQuery,
} from './types.ts';
export type { WaitForJobOptions } from './wait-for-job.ts';

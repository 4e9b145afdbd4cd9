// Every error code docwright answers with: its HTTP status and one sentence for docs/errors.md,
// grouped by the part of the service that answers it. The modules build their errors from these
// tables (defineErrors in src/errors/app-error.ts); docs/errors.md lists the same codes and
// test/errors/registry.test.ts fails when the two disagree. No imports: the client loads this too.

export interface ErrorSpec {
  status: number;
  /** One sentence for docs/errors.md: when this code is answered. */
  description: string;
}

/** The HTTP layer itself: authentication, request shape, limits, server faults. */
export const HTTP_ERROR_CODES = {
  missing_api_key: {
    status: 401,
    description:
      'No Authorization header, or one that is not "Bearer <key>" with a well-formed docwright key (dw_...).',
  },
  invalid_api_key: {
    status: 401,
    description: 'The key is well formed but unknown, revoked or expired.',
  },
  project_forbidden: {
    status: 403,
    description:
      'The key belongs to another project. The answer is the same whether or not the requested project exists.',
  },
  insufficient_scope: {
    status: 403,
    description:
      "The key's scope does not allow this operation (read keys only GET; ingest keys only ingest).",
  },
  route_not_found: { status: 404, description: 'No route has this method and path.' },
  invalid_parameter: {
    status: 400,
    description: 'A path or query parameter is missing, malformed or out of range; details name it.',
  },
  invalid_body: {
    status: 400,
    description: 'The JSON body does not have the required shape; details name the field.',
  },
  invalid_json: {
    status: 400,
    description: 'The body is not valid JSON, or is empty where JSON is required.',
  },
  json_too_deep: {
    status: 400,
    description:
      'The JSON body nests arrays and objects more than 64 levels deep (an NDJSON line that does is rejected alone, as invalid_json).',
  },
  nul_character: {
    status: 400,
    description:
      'A path or query parameter (%00), a JSON string (\\u0000) or a form field contains the NUL character, which text cannot hold; details name where.',
  },
  invalid_header: { status: 400, description: 'A request header is malformed; the message names it.' },
  idempotency_key_reused: {
    status: 422,
    description:
      'The Idempotency-Key was already used, within 24 hours, for a request with a different body (a job creation or an ingest batch).',
  },
  bad_request: {
    status: 400,
    description:
      'The request is malformed in a way no more specific code covers: not valid HTTP (a garbage request line, a malformed Content-Length or one the body does not match); the connection is closed.',
  },
  invalid_url: {
    status: 400,
    description:
      'The URL path is not valid percent-encoding (a % not followed by two hex digits, or bytes that are not UTF-8).',
  },
  parameter_too_long: {
    status: 414,
    description: 'A path parameter is longer than 100 characters (no identifier is that long).',
  },
  headers_too_large: {
    status: 431,
    description:
      'The request line and headers together exceed 16 KiB; most often the URL (its query) is too long.',
  },
  request_timeout: {
    status: 408,
    description: 'The request was not received in full in time; the connection is closed.',
  },
  body_too_large: { status: 413, description: 'The request body is larger than the route accepts.' },
  unsupported_media_type: {
    status: 415,
    description: 'The Content-Type is not one the route accepts (application/json for JSON routes).',
  },
  rate_limited: {
    status: 429,
    description: 'Too many requests in the window; the Retry-After header says how many seconds to wait.',
  },
  internal_error: {
    status: 500,
    description:
      'An unexpected fault on the server; the body carries only the requestId to quote in a report.',
  },
  database_unavailable: {
    status: 503,
    description:
      'The database cannot be reached: from /readyz, and from any request that needs it while it is down (with Retry-After).',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Projects (CLI and admin operations). */
export const PROJECT_ERROR_CODES = {
  project_not_found: { status: 404, description: 'No project has this id (CLI and admin operations).' },
  invalid_project: {
    status: 400,
    description:
      'A project field is missing or malformed (name, repository URL, ref, code host, model, settings).',
  },
} as const satisfies Record<string, ErrorSpec>;

/** API keys (CLI and admin operations). */
export const KEY_ERROR_CODES = {
  key_not_found: { status: 404, description: 'No API key has this id (CLI and admin operations).' },
  invalid_key_request: {
    status: 400,
    description: 'A field of a new API key is malformed: name, scope (admin, read, ingest) or expiry.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Agent jobs. */
export const JOB_ERROR_CODES = {
  job_not_found: { status: 404, description: 'No job has this id in this project.' },
  job_active: {
    status: 409,
    description:
      'The job is still running: a follow-up or archive must wait until it ends (or cancel it first).',
  },
  job_not_active: {
    status: 409,
    description: 'Only an active job can be cancelled; this one has already ended.',
  },
  job_archived: {
    status: 409,
    description: 'The job is archived: it takes no follow-ups and cannot be archived again.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** A job's diff. */
export const JOB_DIFF_ERROR_CODES = {
  job_diff_not_found: {
    status: 404,
    description:
      'The job has no stored diff: it is still running, changed no file, or failed before committing; the message says which.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** A job's docs checks. */
export const JOB_CHECKS_ERROR_CODES = {
  job_checks_not_found: {
    status: 404,
    description:
      'The job has no docs check result: it is still running and has not been checked yet, its project has checks off, or it failed before the checks ran; the message says which.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** A job's CI watch (the checks on its pull request). */
export const JOB_CI_ERROR_CODES = {
  job_ci_not_found: {
    status: 404,
    description:
      "The job has no CI watch: its project's ci setting is off, or it has not opened a pull request yet; the message says which.",
  },
} as const satisfies Record<string, ErrorSpec>;

/** The analytics exports and the agent list. */
export const ANALYTICS_ERROR_CODES = {
  invalid_date_range: {
    status: 400,
    description:
      'dateFrom is not earlier than dateTo (dateTo is exclusive, so equal bounds select nothing); details name dateTo.',
  },
  too_many_buckets: {
    status: 400,
    description:
      'A time series would have more buckets than the limit (2,400): ask for a shorter range or interval=day; details name dateTo, or dateFrom when it was omitted.',
  },
  agent_list_refused: {
    status: 422,
    description:
      'An AI-agent or AI-referrer list sync (docwright agents sync, with --referrers) was refused and changed nothing: the list does not parse, holds no entries, or would drop more than the allowed share of the synced entries.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** The ingest API (POST /v1/analytics/{projectId}/events). Problems with one record are not errors of the request: they are reported in the 202 answer's `rejected` list, so the rest of the batch is kept. */
export const INGEST_ERROR_CODES = {
  too_many_records: {
    status: 413,
    description: 'An ingest batch holds more than 1,000 records; nothing of it was counted. Split it.',
  },
  ingest_overloaded: {
    status: 503,
    description:
      'Too many page views are waiting to be committed; nothing of this batch was counted. Retry after the Retry-After header (seconds).',
  },
  ingest_unavailable: {
    status: 503,
    description:
      'The batch could not be committed (database failure, or the server is shutting down); nothing of it was counted. Retry after the Retry-After header (seconds).',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Log imports. */
export const IMPORT_ERROR_CODES = {
  import_conflict: {
    status: 409,
    description:
      'A log-import chunk does not continue where the ledger stands for that log (another import of the same log ran meanwhile); run the import again to continue from the ledger.',
  },
  import_source_changed: {
    status: 409,
    description:
      'A log starts like one imported before but its already-counted lines differ (edited or replaced in place); nothing of it was imported.',
  },
  import_unrecognised: {
    status: 400,
    description:
      'Not one line of a new log could be read as a request in the chosen format (check --format, --preset and --map); nothing of it was imported.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Dashboard accounts, sign-in and sessions. */
export const ACCOUNT_ERROR_CODES = {
  not_signed_in: {
    status: 401,
    description: 'A dashboard route was called without a valid session (sign in at /app/sign-in).',
  },
  sign_in_failed: {
    status: 401,
    description: 'Dashboard sign-in: the email or the password is wrong (the answer does not say which).',
  },
  sign_in_throttled: {
    status: 429,
    description:
      'Dashboard sign-in: too many failed attempts for this email or client address in 15 minutes; Retry-After says when to try again.',
  },
  csrf_failed: {
    status: 403,
    description:
      'A dashboard change came without the CSRF token of the session, or from another origin; reload the page and try again.',
  },
  setup_done: {
    status: 409,
    description: 'Dashboard setup was asked for, but an account already exists: sign in instead.',
  },
  setup_token_invalid: {
    status: 400,
    description:
      'The dashboard setup code is unknown, used or expired; restarting docwright serve prints a new setup link.',
  },
  invalid_account: {
    status: 400,
    description:
      'An email address or password does not meet the rules (a valid email; 10 to 200 characters).',
  },
  account_exists: { status: 409, description: 'An account with this email address already exists.' },
  invitation_invalid: {
    status: 400,
    description: 'The invitation code is unknown, already accepted, revoked or expired.',
  },
  owner_only: {
    status: 403,
    description:
      "Only the dashboard owner may do this (invite people, remove members, create projects, change a project's repository, code host, webhook URL or GitHub App, set secrets).",
  },
  user_not_found: { status: 404, description: 'No dashboard account has this id.' },
  invitation_not_found: { status: 404, description: 'No pending invitation has this id.' },
} as const satisfies Record<string, ErrorSpec>;

/** The browser script's collect endpoint. */
export const COLLECT_ERROR_CODES = {
  origin_not_allowed: {
    status: 403,
    description:
      "The browser script's request came from an origin that is not in the project's allowedOrigins (or without an Origin header, or for an unknown project); nothing was counted.",
  },
} as const satisfies Record<string, ErrorSpec>;

/** The /metrics endpoint. */
export const METRICS_ERROR_CODES = {
  metrics_token_required: {
    status: 401,
    description:
      'DOCWRIGHT_METRICS_TOKEN is set and the /metrics request did not send it as "Authorization: Bearer <token>".',
  },
} as const satisfies Record<string, ErrorSpec>;

/** The MCP endpoint (/mcp, docs/mcp.md). */
export const MCP_ERROR_CODES = {
  mcp_method_not_allowed: {
    status: 405,
    description:
      'GET or DELETE on /mcp: the MCP endpoint keeps no sessions and offers no server-initiated stream; send each JSON-RPC message with POST.',
  },
  mcp_invalid_request: {
    status: 400,
    description:
      'A POST to /mcp that the MCP transport refuses: not a JSON-RPC message, a batch too large, or an unsupported MCP-Protocol-Version header; the message says which.',
  },
  mcp_not_acceptable: {
    status: 406,
    description:
      'A POST to /mcp whose Accept header does not list both application/json and text/event-stream, as the MCP streamable HTTP transport requires.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** What jobs cost: budgets. */
export const USAGE_ERROR_CODES = {
  budget_exhausted: {
    status: 402,
    description:
      "The project's monthly budget (monthlyBudgetUsd) is spent, or the job's cost cap (jobCostCapUsd) is, for a follow-up: no job or follow-up starts until the budget is raised or the UTC month ends.",
  },
} as const satisfies Record<string, ErrorSpec>;

/** Each table under the name of its owner (the registry reports a code defined twice by owner). */
/** Automations, their trigger URLs and the code hosts' inbound webhooks. */
export const AUTOMATION_ERROR_CODES = {
  automation_not_found: { status: 404, description: 'No automation has this id in this project.' },
  invalid_automation: {
    status: 400,
    description:
      "An automation's trigger, limits or prompt template is not valid (an unknown cron expression or time zone, a filter its trigger kind cannot apply); details name the field.",
  },
  trigger_unauthorized: {
    status: 401,
    description:
      "A trigger URL was called without the automation's trigger secret, with a wrong one, or for an automation that has no webhook trigger (the answer is the same in each case).",
  },
  automation_disabled: {
    status: 409,
    description: 'The automation is disabled: its trigger URL starts no run.',
  },
  webhook_signature_invalid: {
    status: 401,
    description:
      "A code host's webhook is not signed with the project's codeHostWebhookSecret (X-Hub-Signature-256, X-Gitlab-Token, X-Gitea-Signature missing or wrong); nothing was queued.",
  },
} as const satisfies Record<string, ErrorSpec>;

export const ERROR_CODES_BY_OWNER = {
  http: HTTP_ERROR_CODES,
  projects: PROJECT_ERROR_CODES,
  keys: KEY_ERROR_CODES,
  jobs: JOB_ERROR_CODES,
  jobDiffs: JOB_DIFF_ERROR_CODES,
  jobChecks: JOB_CHECKS_ERROR_CODES,
  jobCi: JOB_CI_ERROR_CODES,
  analytics: ANALYTICS_ERROR_CODES,
  ingest: INGEST_ERROR_CODES,
  import: IMPORT_ERROR_CODES,
  accounts: ACCOUNT_ERROR_CODES,
  collect: COLLECT_ERROR_CODES,
  metrics: METRICS_ERROR_CODES,
  mcp: MCP_ERROR_CODES,
  usage: USAGE_ERROR_CODES,
  automations: AUTOMATION_ERROR_CODES,
} as const;

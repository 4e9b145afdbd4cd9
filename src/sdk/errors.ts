// Errors the client throws. An answer of the API becomes a DocwrightError carrying the API's
// stable `code`, the HTTP status and the request id to quote; a subclass per common status lets
// callers catch a family (`instanceof NotFoundError`) and `hasCode()` narrows to one code. A
// request that got no answer at all is a DocwrightNetworkError instead, so callers can tell "the
// server said no" from "the server was not reached".
import type {
  ANALYTICS_ERROR_CODES,
  AUTOMATION_ERROR_CODES,
  HTTP_ERROR_CODES,
  INGEST_ERROR_CODES,
  JOB_ERROR_CODES,
} from '../contract/error-codes.ts';
import type { ErrorDetail, Job } from './types.ts';

/** The codes the API answers with (type only: from the contract's error-code tables). */
export type KnownErrorCode =
  | keyof typeof HTTP_ERROR_CODES
  | keyof typeof JOB_ERROR_CODES
  | keyof typeof ANALYTICS_ERROR_CODES
  | keyof typeof INGEST_ERROR_CODES
  | keyof typeof AUTOMATION_ERROR_CODES;

/** Codes the client itself uses for answers that are not the API's error body. */
export type ClientErrorCode = 'unexpected_response';

// `string & {}` keeps autocompletion of the known codes while allowing codes of newer servers.
export type ErrorCode = KnownErrorCode | ClientErrorCode | (string & {});

export interface DocwrightErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  requestId: string | null;
  details?: ErrorDetail[];
  retryAfterSeconds?: number | null;
  method: string;
  /** Path and query of the request (never the key, which travels in a header). */
  path: string;
}

export class DocwrightError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly requestId: string | null;
  readonly details: ErrorDetail[];
  /** From the Retry-After header (429, 503), in seconds; null when the answer had none. */
  readonly retryAfterSeconds: number | null;
  readonly method: string;
  readonly path: string;

  constructor(init: DocwrightErrorInit) {
    super(init.message);
    this.name = 'DocwrightError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.method = init.method;
    this.path = init.path;
  }

  /** Narrows to one code: `if (error.is('job_active')) ...`. */
  is<C extends ErrorCode>(code: C): this is DocwrightError & { code: C } {
    return this.code === code;
  }

  /** Whether the same request may succeed later without change (rate limits, overload, 5xx). */
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** 400: a parameter, field or header is malformed; details name it. */
export class BadRequestError extends DocwrightError {
  override name = 'BadRequestError';
}
/** 401: no key, a malformed one, or one that is unknown, revoked or expired. */
export class AuthenticationError extends DocwrightError {
  override name = 'AuthenticationError';
}
/** 403: the key belongs to another project, or its scope does not allow this. */
export class PermissionDeniedError extends DocwrightError {
  override name = 'PermissionDeniedError';
}
/** 404: no such job (or project, or route). */
export class NotFoundError extends DocwrightError {
  override name = 'NotFoundError';
}
/** 409: the job is in a state that does not allow this (job_active, job_not_active, job_archived). */
export class ConflictError extends DocwrightError {
  override name = 'ConflictError';
}
/** 422: e.g. idempotency_key_reused. */
export class UnprocessableEntityError extends DocwrightError {
  override name = 'UnprocessableEntityError';
}
/** 429: retryAfterSeconds says when to try again. */
export class RateLimitError extends DocwrightError {
  override name = 'RateLimitError';
}
/** 5xx: a fault on the server, or it is overloaded or unavailable (503 with Retry-After). */
export class ServerError extends DocwrightError {
  override name = 'ServerError';
}

const BY_STATUS: Record<number, new (init: DocwrightErrorInit) => DocwrightError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The DocwrightError subclass for an answer's status. */
export function errorForStatus(init: DocwrightErrorInit): DocwrightError {
  if (init.status >= 500) return new ServerError(init);
  const Type = BY_STATUS[init.status] ?? DocwrightError;
  return new Type(init);
}

/** The request got no answer: DNS, connection refused or reset, TLS, a body cut off mid-way. */
export class DocwrightNetworkError extends Error {
  readonly method: string;
  readonly path: string;
  constructor(message: string, options: { method: string; path: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DocwrightNetworkError';
    this.method = options.method;
    this.path = options.path;
  }
}

/** waitForJob gave up after timeoutMs; lastJob is the job as last seen (null if never read). */
export class DocwrightTimeoutError extends Error {
  readonly jobId: string;
  readonly lastJob: Job | null;
  readonly timeoutMs: number;
  constructor(message: string, options: { jobId: string; timeoutMs: number; lastJob: Job | null }) {
    super(message);
    this.name = 'DocwrightTimeoutError';
    this.jobId = options.jobId;
    this.timeoutMs = options.timeoutMs;
    this.lastJob = options.lastJob;
  }
}

/** Narrows an unknown error to a DocwrightError with this code. */
export function hasCode<C extends ErrorCode>(error: unknown, code: C): error is DocwrightError & { code: C } {
  return error instanceof DocwrightError && error.code === code;
}

// Error codes about the request itself: authentication, request shape, limits, server faults.
// They live outside src/http because services that validate what a request asks for (a job's
// prompt, an export's range, an idempotency key's reuse) raise them too, and services never
// import the HTTP layer.
import { defineErrors } from './app-error.ts';

export const httpErrors = defineErrors({
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
});

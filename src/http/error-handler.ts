// Turns every failure into the one error body: {error, code, details?, requestId}. Client
// mistakes get a 4xx naming what was wrong; anything unexpected is logged in full and answered
// with a 500 that carries no internals.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { AppError, type ErrorDetail } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import { scrubSecrets } from '../util/logger.ts';
import type { App } from './context.ts';

export interface ErrorBody {
  error: string;
  code: string;
  details?: ErrorDetail[];
  requestId: string;
}

/** What a client is told to wait while the database is unreachable (it recovers on its own). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

const LOCATION_NAMES: Record<string, string> = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
};

export function installErrorHandling(app: App): void {
  app.setNotFoundHandler((request, reply) => {
    send(
      request,
      reply,
      // The path is not repeated: it may be long, or carry what its sender did not mean to show.
      httpErrors.route_not_found(
        `No route for ${request.method} at this path; /openapi.json lists the routes.`,
      ),
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let answer: AppError;
    try {
      answer = toAppError(error, request);
    } catch (fault) {
      // Describing the error failed (it should not): still answer in the contract's shape,
      // never with Fastify's fallback body, which quotes the fault's message.
      answer = httpErrors.internal_error(
        `Internal server error. Quote request id ${request.id} when reporting it.`,
        { cause: fault },
      );
    }
    send(request, reply, answer);
  });
}

function send(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
  if (error.status >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
  const body: ErrorBody = { error: error.message, code: error.code, requestId: request.id };
  if (error.details && error.details.length > 0) body.details = error.details;
  reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(body);
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return validationError(error, request);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return httpErrors.unsupported_media_type(
        `Content-Type "${request.headers['content-type'] ?? ''}" is not accepted here; send application/json.`,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return httpErrors.body_too_large(
        `The request body is larger than this route accepts (${bodyLimitText(request)}).`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return httpErrors.invalid_json('The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return httpErrors.invalid_json(`The body is not valid JSON: ${scrubSecrets(error.message)}`);
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return httpErrors.invalid_json(`The body is not valid JSON: ${scrubSecrets(error.message)}`);
  }
  if (isDatabaseUnavailable(error)) {
    return httpErrors.database_unavailable(
      `The database cannot be reached right now; retry after ${DATABASE_RETRY_AFTER_SECONDS} s.`,
      { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return httpErrors.body_too_large('The request body is too large.');
  if (status === 415) return httpErrors.unsupported_media_type('This Content-Type is not accepted here.');
  if (status >= 400 && status < 500) return httpErrors.bad_request(scrubSecrets(error.message));
  return httpErrors.internal_error(
    `Internal server error. Quote request id ${request.id} when reporting it.`,
    { cause: error },
  );
}

function bodyLimitText(request: FastifyRequest): string {
  const limit = request.routeOptions.bodyLimit;
  return limit ? `${limit} bytes` : 'its limit';
}

/** Ajv's errors, rewritten so each names its parameter or field and what it was given. */
function validationError(error: FastifyError, request: FastifyRequest): AppError {
  const context = (error as FastifyError & { validationContext?: string }).validationContext ?? 'body';
  const location = LOCATION_NAMES[context] ?? context;
  const source = (
    context === 'querystring'
      ? request.query
      : context === 'params'
        ? request.params
        : context === 'headers'
          ? request.headers
          : request.body
  ) as Record<string, unknown> | undefined;

  if (context === 'body' && (request.body === undefined || request.body === null)) {
    return httpErrors.invalid_json('A JSON object body is required (Content-Type: application/json).');
  }

  const details: ErrorDetail[] = oneOfAllowedValues(error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string }).missingProperty;
    const name = missing ?? (v.instancePath.replace(/^\//, '').replaceAll('/', '.') || undefined);
    const what =
      location === 'query'
        ? 'Query parameter'
        : location === 'path'
          ? 'Path parameter'
          : location === 'header'
            ? 'Header'
            : 'Field';
    if (name === undefined) {
      return { location, message: location === 'body' ? `The body ${v.message}.` : `${what}s ${v.message}.` };
    }
    if (missing) return { location, name, message: `${what} "${name}" is required.` };
    const given = source?.[name.split('.')[0]!];
    const got = given === undefined ? '' : `; got ${shown(given)}`;
    return { location, name, message: `${what} "${name}" ${v.message}${got}.` };
  });
  const message = details.map((d) => d.message).join(' ');
  return location === 'body'
    ? httpErrors.invalid_body(message, { details })
    : httpErrors.invalid_parameter(message, { details });
}

type AjvError = NonNullable<FastifyError['validation']>[number];

/**
 * A value outside a union of constants (`status`, `format`: TypeBox's Union of Literals) makes Ajv
 * report one "must be equal to constant" per constant and then "must match a schema in anyOf";
 * those are folded into one error listing the allowed values. Other errors pass unchanged.
 */
function oneOfAllowedValues(errors: readonly AjvError[]): AjvError[] {
  const folded: AjvError[] = [];
  let pending: AjvError[] = [];
  for (const error of errors) {
    if (error.keyword === 'const') {
      pending.push(error);
      continue;
    }
    const samePlace = pending.length > 0 && pending.every((c) => c.instancePath === error.instancePath);
    if (error.keyword === 'anyOf' && samePlace) {
      const allowed = pending.map((c) =>
        JSON.stringify((c.params as { allowedValue?: unknown }).allowedValue),
      );
      folded.push({ ...error, message: `must be one of ${allowed.join(', ')}` });
    } else folded.push(...pending, error);
    pending = [];
  }
  folded.push(...pending);
  return folded;
}

/**
 * What the client sent, for a message: scalars as JSON (long strings cut), arrays and objects by
 * their kind only, so a huge or deeply nested value never reaches JSON.stringify.
 */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const scalar = typeof value === 'string' && value.length > 100 ? `${value.slice(0, 100)}...` : value;
  return JSON.stringify(scalar) ?? String(value);
}

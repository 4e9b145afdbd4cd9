// Limits on the text a request may carry, checked where it enters rather than route by route.
// PostgreSQL's text cannot hold the NUL character (it answers "invalid byte sequence for encoding
// UTF8: 0x00"), and JSON nested thousands of levels deep overflows the stack of every recursive
// consumer after the parser (JSON.stringify in the error handler and the idempotency hash): both
// are the client's mistake and are answered 400 before any route sees them.
import type { FastifyRequest } from 'fastify';
import type { AppError, ErrorDetail } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../util/json-depth.ts';

export type JsonValueProblem = 'too_deep' | 'nul';

/**
 * What makes a parsed JSON value unacceptable, or null. `text` is what it was parsed from: JSON
 * can only carry a NUL as the escape `\u0000`, so a text without one needs no walk for it.
 */
export function jsonValueProblem(value: unknown, text: string): JsonValueProblem | null {
  if (exceedsJsonDepth(value)) return 'too_deep';
  // The search is cheap; the walk is exact (`\\u0000` is an escaped backslash, not a NUL).
  if (text.includes('\\u0000') && holdsNul(value)) return 'nul';
  return null;
}

/** The 400 for a problem jsonValueProblem found. */
export function jsonValueError(problem: JsonValueProblem): AppError {
  if (problem === 'too_deep') {
    return httpErrors.json_too_deep(
      `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
    );
  }
  return nulError({
    location: 'body',
    message: 'A string in the body contains the NUL character (\\u0000).',
  });
}

/**
 * The onRequest check of path and query parameters. A URL can carry a NUL only as `%00` (Node
 * refuses a raw one), so requests without it cost one substring search.
 */
export function checkUrlText(request: FastifyRequest): void {
  if (!request.url.includes('%00')) return;
  for (const [location, values] of [
    ['path', request.params],
    ['query', request.query],
  ] as const) {
    for (const [name, value] of Object.entries((values ?? {}) as Record<string, unknown>)) {
      if ([value].flat().some((v) => typeof v === 'string' && v.includes('\0'))) {
        const what = location === 'path' ? 'Path parameter' : 'Query parameter';
        throw nulError({ location, name, message: `${what} "${name}" contains the NUL character (%00).` });
      }
    }
  }
  throw nulError({ location: 'path', message: 'The URL contains the NUL character (%00).' });
}

/** The preValidation check of bodies no JSON parser saw (the dashboard's forms). */
export function checkFormText(request: FastifyRequest): void {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !isForm(request)) return;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name.includes('\0') || [value].flat().some((v) => typeof v === 'string' && v.includes('\0'))) {
      throw nulError({ location: 'body', name, message: `Field "${name}" contains the NUL character.` });
    }
  }
}

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

function nulError(detail: ErrorDetail): AppError {
  return httpErrors.nul_character(`${detail.message} Text cannot hold it; remove it and send again.`, {
    details: [detail],
  });
}

/** Whether any string or key in `value` holds a NUL; only called on values within the depth limit. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const key in value) {
    if (key.includes('\0') || holdsNul((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

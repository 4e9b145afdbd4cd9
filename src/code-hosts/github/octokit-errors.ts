// Turns what Octokit throws into a CodeHostError. Octokit's RequestError carries the status, the
// response (GitHub's {message, errors[], documentation_url}) and the request with the
// Authorization header already redacted; only status, headers and GitHub's words are used here,
// and those are scrubbed, because hosts and proxies sometimes echo what they were sent.
import {
  CodeHostError,
  httpFailure,
  networkFailure,
  parseRetryAfter,
  type SecretScrubber,
} from '../errors.ts';

/** The part of Octokit's RequestError (name "HttpError") used here; it is not exported by @octokit/rest. */
interface OctokitHttpError {
  status: number;
  response?: { headers: Record<string, string | undefined>; data: unknown };
}

function asOctokitHttpError(error: unknown): OctokitHttpError | undefined {
  if (!(error instanceof Error) || error.name !== 'HttpError') return undefined;
  const candidate = error as Error & Partial<OctokitHttpError>;
  return typeof candidate.status === 'number' ? (candidate as OctokitHttpError) : undefined;
}

interface GitHubErrorBody {
  message?: unknown;
  errors?: unknown;
}

/** GitHub's validation errors ({resource, field, code, message}) as one short phrase. */
export function describeGitHubError(data: unknown): string {
  if (typeof data === 'string') return data.slice(0, 300);
  if (!data || typeof data !== 'object') return '';
  const body = data as GitHubErrorBody;
  const parts: string[] = [];
  if (typeof body.message === 'string') parts.push(body.message);
  if (Array.isArray(body.errors)) {
    const details = body.errors
      .map((e: unknown) => {
        if (typeof e === 'string') return e;
        if (!e || typeof e !== 'object') return '';
        const { message, field, code } = e as { message?: unknown; field?: unknown; code?: unknown };
        if (typeof message === 'string') return message;
        return [field, code].filter((x) => typeof x === 'string').join(' ');
      })
      .filter(Boolean);
    if (details.length > 0) parts.push(`(${details.join('; ')})`);
  }
  return parts.join(' ');
}

export function toCodeHostError(
  error: unknown,
  context: { scrubber: SecretScrubber; action: string; apiUrl?: string },
): CodeHostError {
  if (error instanceof CodeHostError) return error;
  const { scrubber, action } = context;
  const httpError = asOctokitHttpError(error);
  if (!httpError?.response) {
    const failure = networkFailure('GitHub', action, context.apiUrl ?? 'its API', error);
    return new CodeHostError(failure.code, scrubber.scrub(failure.message), { retryable: failure.retryable });
  }
  const { status, response } = httpError;
  const headers = response.headers;
  const retryAfter = parseRetryAfter(headers['retry-after']);
  // GitHub answers rate limits with 403 (or 429) and either Retry-After or an exhausted quota.
  const rateLimited =
    (status === 403 || status === 429) &&
    (retryAfter !== undefined || headers['x-ratelimit-remaining'] === '0');
  let waitSeconds = retryAfter;
  if (rateLimited && waitSeconds === undefined && headers['x-ratelimit-reset']) {
    waitSeconds = Math.max(0, Number(headers['x-ratelimit-reset']) - Math.floor(Date.now() / 1000));
  }
  return httpFailure({
    host: 'GitHub',
    action,
    status,
    ...(context.apiUrl ? { apiUrl: context.apiUrl } : {}),
    hostMessage: scrubber.scrub(describeGitHubError(response.data)),
    ...(rateLimited ? { retryable: true } : {}),
    ...(waitSeconds === undefined ? {} : { retryAfterSeconds: waitSeconds }),
  });
}

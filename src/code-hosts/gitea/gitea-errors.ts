// Turns what gitea-js throws into a CodeHostError. On an HTTP error gitea-js throws the fetch
// Response itself, with the parsed body in `.error` (Gitea answers {"message": ..., "url": ...});
// on a network fault, fetch's TypeError.
import {
  CodeHostError,
  httpFailure,
  networkFailure,
  parseRetryAfter,
  type SecretScrubber,
} from '../errors.ts';

interface GiteaErrorResponse {
  status: number;
  headers: Headers;
  error: unknown;
}

function asErrorResponse(thrown: unknown): GiteaErrorResponse | undefined {
  if (!thrown || typeof thrown !== 'object') return undefined;
  const candidate = thrown as Partial<GiteaErrorResponse>;
  return typeof candidate.status === 'number' && candidate.headers instanceof Headers
    ? (candidate as GiteaErrorResponse)
    : undefined;
}

function describeGiteaError(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (!body || typeof body !== 'object') return '';
  const { message, errors } = body as { message?: unknown; errors?: unknown };
  const parts: string[] = [];
  if (typeof message === 'string') parts.push(message);
  if (Array.isArray(errors) && errors.length > 0) parts.push(`(${errors.map(String).join('; ')})`);
  return parts.join(' ').slice(0, 500);
}

export function toCodeHostError(
  thrown: unknown,
  context: { scrubber: SecretScrubber; action: string; apiUrl: string },
): CodeHostError {
  const { scrubber, action, apiUrl } = context;
  if (thrown instanceof CodeHostError) return thrown;
  const response = asErrorResponse(thrown);
  if (response) {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    return httpFailure({
      host: 'Gitea',
      action,
      status: response.status,
      apiUrl,
      hostMessage: scrubber.scrub(describeGiteaError(response.error)),
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    });
  }
  const failure = networkFailure('Gitea', action, apiUrl, thrown);
  return new CodeHostError(failure.code, scrubber.scrub(failure.message), { retryable: failure.retryable });
}

// Turns what @gitbeaker/rest throws into a CodeHostError. GitbeakerRequestError keeps the whole
// Request in its cause (with the PRIVATE-TOKEN header), so only the status, the Retry-After header
// and GitLab's own message ({"message": ...} or {"error": ...}, which gitbeaker puts in the error
// message) are used, scrubbed.
//
// gitbeaker already retries 429 and 502 itself (ten quick tries); when those run out it throws
// GitbeakerRetryError, which is final here.
import { GitbeakerRequestError, GitbeakerRetryError, GitbeakerTimeoutError } from '@gitbeaker/rest';
import {
  CodeHostError,
  httpFailure,
  networkFailure,
  parseRetryAfter,
  type SecretScrubber,
} from '../errors.ts';

export function toCodeHostError(
  error: unknown,
  context: { scrubber: SecretScrubber; action: string; apiUrl: string },
): CodeHostError {
  const { scrubber, action, apiUrl } = context;
  if (error instanceof CodeHostError) return error;
  if (error instanceof GitbeakerRetryError) {
    return new CodeHostError(
      'pr_failed',
      `GitLab kept answering busy or rate-limited when asked to ${action}: ${scrubber.scrub(error.message)}`,
    );
  }
  if (error instanceof GitbeakerTimeoutError) {
    return new CodeHostError(
      'pr_failed',
      `GitLab at ${apiUrl} did not answer in time when asked to ${action}.`,
      {
        retryable: true,
      },
    );
  }
  if (error instanceof GitbeakerRequestError) {
    const response = (error.cause as { response?: Response } | undefined)?.response;
    if (response) {
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      return httpFailure({
        host: 'GitLab',
        action,
        status: response.status,
        apiUrl,
        hostMessage: scrubber.scrub(readableMessage(error.message)).slice(0, 500),
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      });
    }
  }
  const failure = networkFailure('GitLab', action, apiUrl, error);
  return new CodeHostError(failure.code, scrubber.scrub(failure.message), { retryable: failure.retryable });
}

/** gitbeaker JSON-encodes a message that GitLab sent as a list (validation errors); join it back. */
function readableMessage(message: string): string {
  if (!message.startsWith('[') && !message.startsWith('{')) return message;
  try {
    const parsed: unknown = JSON.parse(message);
    if (Array.isArray(parsed)) return parsed.map(String).join('; ');
    if (parsed && typeof parsed === 'object') {
      return Object.entries(parsed)
        .map(
          ([field, problems]) =>
            `${field} ${Array.isArray(problems) ? problems.join(', ') : String(problems)}`,
        )
        .join('; ');
    }
  } catch {
    // Not JSON after all: keep it as it came.
  }
  return message;
}

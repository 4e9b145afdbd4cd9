// How a code host operation fails. The codes are job failure codes (src/modules/jobs/failure-codes.ts
// and docs/errors.md): the job runner copies code and message into the failed job as they are, so
// a message must name the cause and must never carry a secret.

/** code_host_auth: the host refused the credentials. pr_failed: anything else went wrong. */
export type CodeHostFailureCode = 'code_host_auth' | 'pr_failed';

export class CodeHostError extends Error {
  readonly code: CodeHostFailureCode;
  /** The host's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** Whether trying again later could help (429, 5xx, network faults). */
  readonly retryable: boolean;
  /** Seconds the host asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  // No `cause`: the client libraries' errors hold the request, and with it the token.
  constructor(
    code: CodeHostFailureCode,
    message: string,
    details: { status?: number; retryable?: boolean; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'CodeHostError';
    this.code = code;
    this.status = details.status;
    this.retryable = details.retryable ?? false;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** Whether an HTTP status is worth retrying: rate limits and server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/** Classifies an HTTP failure: 401/403 are the credentials' fault; the rest fails the pull request. */
export function codeForStatus(status: number | undefined): CodeHostFailureCode {
  return status === 401 || status === 403 ? 'code_host_auth' : 'pr_failed';
}

/** Parses Retry-After given in seconds (the form code hosts use); dates are ignored. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * Removes secrets from text meant for people. Each secret is also removed in the encodings it
 * travels in (base64 of the Basic credentials, URL encoding), because hosts and proxies echo
 * headers and URLs back in error bodies.
 */
export class SecretScrubber {
  #secrets: string[] = [];

  add(secret: string | undefined | null): void {
    if (!secret || secret.length < 4) return;
    for (const form of [secret, encodeURIComponent(secret)]) {
      if (!this.#secrets.includes(form)) this.#secrets.push(form);
    }
    // Longest first, so a secret that contains another is removed whole.
    this.#secrets.sort((a, b) => b.length - a.length);
  }

  scrub(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.split(secret).join('[REDACTED]');
    return result;
  }
}

export interface HttpFailure {
  /** "GitHub", "GitLab", "Gitea". */
  host: string;
  /** What docwright was doing, as a phrase after "to": "open a pull request from x into y in acme/docs". */
  action: string;
  status: number;
  /** What the host said, if anything (already scrubbed). */
  hostMessage?: string;
  retryAfterSeconds?: number;
  /** Forces retrying (e.g. GitHub's 403 rate limit); otherwise decided by the status. */
  retryable?: boolean;
  /** The API root called, named in the message: a wrong base or API URL shows at once. */
  apiUrl?: string;
}

/** A CodeHostError for an HTTP answer, with a message that says what failed and what it likely means. */
export function httpFailure(failure: HttpFailure): CodeHostError {
  const { host, action, status, hostMessage } = failure;
  // GitLab's messages already start with the status ("401 Unauthorized").
  const said = !hostMessage
    ? `${status}`
    : hostMessage.startsWith(`${status} `)
      ? hostMessage
      : `${status} ${hostMessage}`;
  let message: string;
  if (failure.retryable && (status === 403 || status === 429)) {
    message = `${host} rate-limited the request to ${action} (${said}); it did not clear in time.`;
  } else if (status === 401) {
    message = `${host} refused the credentials (${said}) when asked to ${action}: the token is wrong, expired or revoked.`;
  } else if (status === 403) {
    message = `${host} denied permission (${said}) to ${action}: the token lacks the needed scope or access to this repository.`;
  } else if (status === 404) {
    message = `${host} answered ${said} when asked to ${action}: the repository or branch does not exist, or the token cannot see it.`;
  } else {
    message = `${host} answered ${said} when asked to ${action}.`;
  }
  if (failure.apiUrl) message = `${message.replace(/\.$/, '')} (API called: ${failure.apiUrl}).`;
  const retryable = failure.retryable ?? isRetryableStatus(status);
  return new CodeHostError(retryable && status === 403 ? 'pr_failed' : codeForStatus(status), message, {
    status,
    retryable,
    ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
  });
}

/** A CodeHostError for a request that got no answer (refused connection, DNS, timeout, abort). */
export function networkFailure(host: string, action: string, apiUrl: string, error: unknown): CodeHostError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError') {
    return new CodeHostError('pr_failed', `The request to ${host} to ${action} was cancelled.`);
  }
  const reason = name === 'TimeoutError' ? 'it did not answer in time' : describeCause(error);
  return new CodeHostError('pr_failed', `Could not reach ${host} at ${apiUrl} to ${action}: ${reason}.`, {
    retryable: true,
  });
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    return code ? `${cause.message} (${code})` : cause.message;
  }
  return error.message;
}

// A small retry loop around one code host request. Octokit's retry and throttling plugins are not
// dependencies, and what docwright needs is modest: a job that meets a brief 502 or a rate limit
// should wait a little and try again, and otherwise fail with a clear reason. Each request is
// retried on its own (not the whole open-or-update sequence), so a retried "create" that had in
// fact succeeded meets the host's "already exists" answer, which the adapters turn into a reuse.
// The waits follow the runtime's one retry policy (a leaf module: adapters may import it).
import { EQUAL_JITTER, type RetryPolicy, retrying } from '../runtime/retry-policy.ts';
import { CodeHostError } from './errors.ts';

export type { RetryPolicy } from '../runtime/retry-policy.ts';

/**
 * Four tries in all; no single wait is longer than 20 s, whatever Retry-After says (a job should
 * fail rather than stall).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  jitter: EQUAL_JITTER,
};

export function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  return retrying(policy, attempt, {
    signal,
    // The request then meets the aborted signal and fails as a CodeHostError, as callers expect.
    abortedWait: 'call-again',
    retryable: (error) =>
      error instanceof CodeHostError && error.retryable
        ? { retryAfterMs: error.retryAfterSeconds === undefined ? null : error.retryAfterSeconds * 1000 }
        : null,
  });
}

// A small retry loop around one code host request. Octokit's retry and throttling plugins are not
// dependencies, and what docwright needs is modest: a job that meets a brief 502 or a rate limit
// should wait a little and try again, and otherwise fail with a clear reason. Each request is
// retried on its own (not the whole open-or-update sequence), so a retried "create" that had in
// fact succeeded meets the host's "already exists" answer, which the adapters turn into a reuse.
import { CodeHostError } from './errors.ts';

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubles each time. */
  baseDelayMs: number;
  /** No single wait is longer, whatever Retry-After says (a job should fail rather than stall). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 };

export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let tryNumber = 1; ; tryNumber++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof CodeHostError) || !error.retryable || tryNumber >= policy.attempts) throw error;
      if (signal?.aborted) throw error;
      const backoff = policy.baseDelayMs * 2 ** (tryNumber - 1);
      const asked = error.retryAfterSeconds === undefined ? 0 : error.retryAfterSeconds * 1000;
      await sleep(Math.min(policy.maxDelayMs, Math.max(backoff, asked)), signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

// Retries of model calls, done once for every provider as a language-model middleware around the
// provider's own call (so it sees the AI SDK's APICallError with status and headers).
//
// Why not the AI SDK's maxRetries: its first wait is fixed at 2 s (not configurable from
// generateText/streamText), it adds no jitter (every worker hit by one outage retries in
// lockstep), and it retries any 429 including "out of credit" ones. Here the base is configurable
// (tests use a few milliseconds), waits get jitter, retry-after-ms / retry-after are honoured up to
// a cap, and quota 429s are not retried. Callers must pass maxRetries: 0 to the AI SDK so the two
// do not multiply (the agent loop does).
import { setTimeout as sleep } from 'node:timers/promises';
import type { LanguageModelMiddleware } from 'ai';
import { describeProviderError, type FailureContext, isAbortError, modelFailureFrom } from './classify.ts';
import { redactSecrets } from './redact.ts';

export interface RetryPolicy {
  /** Retries after the first attempt (0 turns retrying off). */
  maxRetries: number;
  /** The first backoff; it doubles with each retry. */
  baseDelayMs: number;
  /** No wait is longer than this, whether from backoff or from the provider's retry-after. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };

export interface RetryEvent {
  /** The attempt that failed (1 for the first call). */
  attempt: number;
  delayMs: number;
  statusCode: number | null;
  /** Whether the wait came from the provider's retry-after headers. */
  fromRetryAfter: boolean;
  /** The provider's message, secrets removed. */
  message: string;
}

export interface RetryOptions {
  policy?: Partial<RetryPolicy>;
  onRetry?: (event: RetryEvent) => void;
  /** For tests of the jitter; Math.random otherwise. */
  random?: () => number;
  context: FailureContext;
}

/** Exponential backoff with "equal jitter": half of each wait is fixed, half random. */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return exponential / 2 + (random() * exponential) / 2;
}

/** The provider's retry-after when it gave one (capped), else backoff. */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | null,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs);
  return backoffDelayMs(retry, policy, random);
}

/**
 * Runs a provider call, retrying what the provider says is transient. What cannot be retried, or
 * still fails after the last retry, is thrown as a ModelFailure (model_error); aborts and
 * docwright's own faults are thrown unchanged.
 */
export async function callWithRetries<T>(
  call: () => PromiseLike<T>,
  signal: AbortSignal | undefined,
  options: RetryOptions,
): Promise<T> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (isAbortError(error) || signal?.aborted) throw error;
      const info = describeProviderError(error);
      if (info === null) throw error;
      if (!info.retryable || attempt > policy.maxRetries) {
        throw modelFailureFrom(error, { ...options.context, attempts: attempt }) ?? error;
      }
      const delayMs = retryDelayMs(attempt, info.retryAfterMs, policy, options.random);
      options.onRetry?.({
        attempt,
        delayMs,
        statusCode: info.statusCode,
        fromRetryAfter: info.retryAfterMs !== null,
        message: redactSecrets(info.message, options.context.secrets),
      });
      // Rejects with an AbortError when the run is cancelled or out of time during the wait.
      await sleep(delayMs, undefined, signal ? { signal } : undefined);
    }
  }
}

export function retryMiddleware(options: RetryOptions): LanguageModelMiddleware {
  return {
    specificationVersion: 'v4',
    wrapGenerate: ({ doGenerate, params }) => callWithRetries(doGenerate, params.abortSignal, options),
    // A stream is retried only until its answer starts (the status and headers): a failure in
    // the middle of a stream reaches the caller, because its beginning was already delivered.
    wrapStream: ({ doStream, params }) => callWithRetries(doStream, params.abortSignal, options),
  };
}

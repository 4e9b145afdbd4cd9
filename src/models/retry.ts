// Retries of model calls, done once for every provider as a language-model middleware around the
// provider's own call (so it sees the AI SDK's APICallError with status and headers).
//
// Why not the AI SDK's maxRetries: its first wait is fixed at 2 s (not configurable from
// generateText/streamText), it adds no jitter (every worker hit by one outage retries in
// lockstep), and it retries any 429 including "out of credit" ones. Here the base is configurable
// (tests use a few milliseconds), waits get jitter, retry-after-ms / retry-after are honoured up to
// a cap, and quota 429s are not retried. Callers must pass maxRetries: 0 to the AI SDK so the two
// do not multiply (the agent loop does). The waits follow the runtime's one retry policy.
import type { LanguageModelMiddleware } from 'ai';
import {
  EQUAL_JITTER,
  nextRetryDelayMs,
  backoffDelayMs as policyBackoffDelayMs,
  type RetryPolicy,
  retrying,
} from '../runtime/retry-policy.ts';
import { describeProviderError, type FailureContext, modelFailureFrom } from './classify.ts';
import { redactSecrets } from './redact.ts';

export type { RetryPolicy } from '../runtime/retry-policy.ts';

/** Five attempts in all; "equal jitter" (half of each wait fixed, half random). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  jitter: EQUAL_JITTER,
};

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

/** Exponential backoff with jitter (the runtime's policy), for the retry after `retry` failures. */
export function backoffDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'jitter'>,
  random: () => number = Math.random,
): number {
  return policyBackoffDelayMs(policy, retry, random);
}

/** The provider's retry-after when it gave one (capped), else backoff. */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | null,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'jitter'>,
  random: () => number = Math.random,
): number {
  return (
    nextRetryDelayMs({ ...policy, attempts: Number.POSITIVE_INFINITY }, retry, retryAfterMs, random) ?? 0
  );
}

/**
 * Runs a provider call, retrying what the provider says is transient. What cannot be retried, or
 * still fails after the last attempt, is thrown as a ModelFailure (model_error); aborts and
 * docwright's own faults are thrown unchanged. A cancel during a wait rejects with an AbortError.
 */
export function callWithRetries<T>(
  call: () => PromiseLike<T>,
  signal: AbortSignal | undefined,
  options: RetryOptions,
): Promise<T> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  return retrying(policy, call, {
    signal,
    ...(options.random ? { random: options.random } : {}),
    retryable: (error) => {
      const info = describeProviderError(error);
      return info?.retryable ? info : null;
    },
    onRetry: ({ failedTries, delayMs, why }) =>
      options.onRetry?.({
        attempt: failedTries,
        delayMs,
        statusCode: why.statusCode,
        fromRetryAfter: why.retryAfterMs !== null,
        message: redactSecrets(why.message, options.context.secrets),
      }),
    // Aborts and docwright's own faults are no provider's failure: modelFailureFrom leaves them.
    giveUp: (error, tries) => modelFailureFrom(error, { ...options.context, attempts: tries }) ?? error,
  });
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

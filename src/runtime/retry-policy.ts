// The one retry policy: how many tries, how long to wait between them, and how the other side's
// Retry-After is honoured. Used by the webhook dispatcher (per delivery, the waits stored in the
// database), by the model middleware and by the code host adapters (per request, waited in
// process). It imports nothing, so the adapters, which may import only their own contract, may
// import it too.
//
// - `attempts` counts tries in all, the first included (1 turns retrying off).
// - The nominal wait before try n + 1 is `scheduleMs[n - 1]` when a schedule is given (no try is
//   left after its last entry), else `baseDelayMs` doubled n - 1 times; either is capped by
//   `maxDelayMs`.
// - Jitter: the wait is the nominal one times a random factor between `jitter.min` and
//   `jitter.max`, so callers that failed together do not all come back in the same instant.
// - Retry-After: when the other side said how long to wait, that wait is used (capped by
//   `maxDelayMs`, no jitter) instead of the backoff.

export interface RetryJitter {
  /** The smallest factor applied to a nominal wait. */
  min: number;
  /** The largest factor applied to a nominal wait. */
  max: number;
}

/** "Equal jitter": half of each wait is fixed, half random. */
export const EQUAL_JITTER: RetryJitter = { min: 0.5, max: 1 };

export interface RetryPolicy {
  /** Tries in all, the first included (1 turns retrying off). */
  attempts: number;
  /** The nominal wait before the second try; it doubles with each further try. */
  baseDelayMs: number;
  /** No nominal wait, and no wait asked for by Retry-After, is longer than this. */
  maxDelayMs: number;
  /** Fixed nominal waits after try 1, 2, ... instead of doubling. */
  scheduleMs?: readonly number[];
  /** The random factor range applied to nominal waits (default EQUAL_JITTER). */
  jitter?: RetryJitter;
}

/** The wait before try `failedTries + 1` from backoff alone (with jitter), whatever the try count. */
export function backoffDelayMs(
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'scheduleMs' | 'jitter'>,
  failedTries: number,
  random: () => number = Math.random,
): number {
  const nominal = Math.min(
    policy.maxDelayMs,
    policy.scheduleMs?.[failedTries - 1] ?? policy.baseDelayMs * 2 ** (failedTries - 1),
  );
  const jitter = policy.jitter ?? EQUAL_JITTER;
  return nominal * (jitter.min + (jitter.max - jitter.min) * random());
}

/**
 * The wait before the next try after `failedTries` failed ones, or null when no try is left:
 * the other side's Retry-After when it gave one (capped), else backoff with jitter.
 */
export function nextRetryDelayMs(
  policy: RetryPolicy,
  failedTries: number,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number | null {
  if (failedTries >= policy.attempts) return null;
  if (policy.scheduleMs !== undefined && policy.scheduleMs[failedTries - 1] === undefined) return null;
  if (retryAfterMs !== null) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs);
  return backoffDelayMs(policy, failedTries, random);
}

export interface RetryHooks<Why> {
  /**
   * Whether a failure may be tried again: null when not, else what the failure says (at least the
   * wait it asked for, or null).
   */
  retryable(error: unknown): (Why & { retryAfterMs: number | null }) | null;
  /** Ends the waits early; an abort while waiting rejects with an AbortError (see abortedWait). */
  signal?: AbortSignal | undefined;
  /**
   * What an abort during a wait does: 'throw' an AbortError (default), or 'call-again' at once so
   * the call meets the aborted signal and fails in its own way (its own error type).
   */
  abortedWait?: 'throw' | 'call-again';
  /** Told before each wait. */
  onRetry?(retry: { failedTries: number; delayMs: number; why: Why }): void;
  /** What to throw when giving up (by default the last failure). */
  giveUp?(error: unknown, tries: number): unknown;
  /** For tests of the jitter; Math.random otherwise. */
  random?: () => number;
}

/** Runs call, trying again as the policy says while the failures are retryable. */
export async function retrying<T, Why = object>(
  policy: RetryPolicy,
  call: () => PromiseLike<T>,
  hooks: RetryHooks<Why>,
): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      if (hooks.signal?.aborted) throw error;
      const why = hooks.retryable(error);
      const delayMs = why === null ? null : nextRetryDelayMs(policy, tries, why.retryAfterMs, hooks.random);
      if (why === null || delayMs === null) throw hooks.giveUp ? hooks.giveUp(error, tries) : error;
      hooks.onRetry?.({ failedTries: tries, delayMs, why });
      await wait(delayMs, hooks.signal, hooks.abortedWait ?? 'throw');
    }
  }
}

function wait(ms: number, signal: AbortSignal | undefined, onAborted: 'throw' | 'call-again'): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      if (onAborted === 'call-again') resolve();
      else reject(new DOMException('The operation was aborted', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// When a failed delivery is tried again. Six attempts over about an hour: quick retries for a
// receiver that blinked, long ones for a receiver that is down for a deploy. The waits follow the
// runtime's one retry policy, as a fixed schedule; the dispatcher stores them as the row's next
// due time instead of waiting in process.
import {
  nextRetryDelayMs as policyDelayMs,
  type RetryJitter,
  type RetryPolicy,
} from '../../runtime/index.ts';

/** Delay after attempt n (index n - 1); the attempt after the last delay is the last one. */
export const DEFAULT_RETRY_DELAYS_MS = [30_000, 120_000, 300_000, 900_000, 2_400_000] as const;

/** Up to ±20%: keeps deliveries that failed together from all retrying in the same second. */
const DELIVERY_JITTER: RetryJitter = { min: 0.8, max: 1.2 };

/** The policy for a schedule of delays: one attempt more than there are delays. */
export function deliveryRetryPolicy(delays: readonly number[]): RetryPolicy {
  return {
    attempts: delays.length + 1,
    baseDelayMs: delays[0] ?? 0,
    maxDelayMs: Number.POSITIVE_INFINITY,
    scheduleMs: delays,
    jitter: DELIVERY_JITTER,
  };
}

/** The delay before the next attempt after `attempts` failed ones, or null when none is left. */
export function nextRetryDelayMs(
  attempts: number,
  delays: readonly number[],
  random: () => number = Math.random,
): number | null {
  const delay = policyDelayMs(deliveryRetryPolicy(delays), attempts, null, random);
  // Whole milliseconds: the wait becomes the row's next due time.
  return delay === null ? null : Math.round(delay);
}

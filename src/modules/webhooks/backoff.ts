// When a failed delivery is tried again. Six attempts over about an hour: quick retries for a
// receiver that blinked, long ones for a receiver that is down for a deploy.

/** Delay after attempt n (index n - 1); the attempt after the last delay is the last one. */
export const DEFAULT_RETRY_DELAYS_MS = [30_000, 120_000, 300_000, 900_000, 2_400_000] as const;

/**
 * The delay before the next attempt after `attempts` failed ones, or null when none is left.
 * Jitter (up to ±20%) keeps deliveries that failed together from all retrying in the same second.
 */
export function nextRetryDelayMs(
  attempts: number,
  delays: readonly number[],
  random: () => number = Math.random,
): number | null {
  const base = delays[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

// How long rankings live and how many a project keeps. Each live ranking that covers the hours
// being written costs writers one more upsert of the batch's paths, so the cache is kept small and
// to rankings that someone reads.

/** A ranking nobody read for this long is marked stale by the next writer instead of maintained. */
export const RANKING_IDLE_SECONDS = 900;

/** Readers refresh last_used_at at most this often (a write per read would be wasteful). */
export const RANKING_TOUCH_AFTER_SECONDS = 60;

/** Rankings kept per project; a build beyond it removes the least recently used. */
export const MAX_RANKINGS_PER_PROJECT = 16;

/**
 * How long a build waits for the writers in flight to commit. Beyond it the export answers from
 * the levels directly (exact, slower) instead of keeping the reader waiting.
 */
export const BUILD_LOCK_TIMEOUT_MS = 5000;

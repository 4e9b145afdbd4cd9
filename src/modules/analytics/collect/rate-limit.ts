// A light per-address limit for the browser script's endpoint, which needs no key: a token bucket
// per client address, kept for a bounded number of addresses (the least recently seen are
// forgotten, which only ever makes the limit more lenient). One process's memory, no database:
// it is there to stop one client from flooding the counts, not to meter anyone.

export interface RateLimitOptions {
  /** Requests an address may send at once. */
  burst: number;
  /** Requests per second an address gets back. */
  perSecond: number;
  /** Addresses remembered at most. */
  maxAddresses: number;
  now?: () => number;
}

export const DEFAULT_COLLECT_RATE_LIMIT: RateLimitOptions = {
  burst: 120,
  perSecond: 4,
  maxAddresses: 50_000,
};

interface Bucket {
  tokens: number;
  at: number;
}

export class AddressRateLimiter {
  readonly #options: RateLimitOptions;
  readonly #now: () => number;
  // A Map keeps insertion order: re-inserting on each use makes the first key the least recent.
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: Partial<RateLimitOptions> = {}) {
    this.#options = { ...DEFAULT_COLLECT_RATE_LIMIT, ...options };
    this.#now = options.now ?? Date.now;
  }

  /** Takes one request from the address's bucket: 0 when allowed, else seconds until it would be. */
  take(address: string): number {
    const now = this.#now();
    const { burst, perSecond, maxAddresses } = this.#options;
    const previous = this.#buckets.get(address);
    let tokens = burst;
    if (previous) {
      tokens = Math.min(burst, previous.tokens + ((now - previous.at) / 1000) * perSecond);
      this.#buckets.delete(address);
    } else if (this.#buckets.size >= maxAddresses) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    if (tokens < 1) {
      this.#buckets.set(address, { tokens, at: now });
      return Math.max(1, Math.ceil((1 - tokens) / perSecond));
    }
    this.#buckets.set(address, { tokens: tokens - 1, at: now });
    return 0;
  }
}

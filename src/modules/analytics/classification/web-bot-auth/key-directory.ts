// Fetches and caches Web Bot Auth key directories
// (`<origin>/.well-known/http-message-signatures-directory`, a JWK Set). The URL comes from a
// request header, so every fetch is treated as untrusted (the drafts' SSRF section) and goes
// through the outbound-HTTP module (src/net/outbound-http): https only, no special-purpose
// addresses (checked at connect time), no redirects, a wall-clock timeout, a byte cap; and a
// key-count cap here. Results are cached per origin (HTTP max-age within bounds), failures for a short
// while (negative cache), and concurrent fetches of one origin share one request. A failed refresh
// keeps the keys already held: an operator's outage must not revoke its keys everywhere.

import {
  type OutboundPolicy,
  OutboundRefusedError,
  type OutboundRequest,
  type OutboundResponse,
  outboundRequest,
} from '../../../../net/outbound-http/index.ts';
import { LruCache } from '../lru-cache.ts';
import { type DirectoryKey, ed25519KeysOf } from './jwk.ts';

export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

export type RequestLike = (url: URL, request: OutboundRequest) => Promise<OutboundResponse>;

export interface KeyDirectoryOptions {
  /** Injected in tests to answer for a made-up origin; defaults to the outbound-HTTP module. */
  request?: RequestLike;
  timeoutMs?: number;
  maxBytes?: number;
  maxKeys?: number;
  /** Used when the response carries no max-age. */
  defaultTtlMs?: number;
  minTtlMs?: number;
  maxTtlMs?: number;
  /** How long a failed fetch is remembered before trying again (drafts: at most five minutes). */
  negativeTtlMs?: number;
  maxOrigins?: number;
  /** Off only for tests against a local plain-HTTP directory. */
  requireHttps?: boolean;
  blockPrivateAddresses?: boolean;
  now?: () => number;
}

export type DirectoryState =
  | { status: 'ready'; keys: DirectoryKey[]; freshUntil: number }
  | {
      status: 'failed';
      reason: 'directory_unavailable' | 'agent_url_refused';
      detail: string;
      retryAt: number;
    };

export class DirectoryError extends Error {
  readonly reason: 'directory_unavailable' | 'agent_url_refused';
  constructor(reason: 'directory_unavailable' | 'agent_url_refused', message: string) {
    super(message);
    this.reason = reason;
    this.name = 'DirectoryError';
  }
}

function maxAgeMs(cacheControl: string | undefined): number | null {
  if (!cacheControl) return null;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return match ? Number(match[1]) * 1000 : null;
}

export class KeyDirectoryCache {
  readonly #request: RequestLike;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #maxKeys: number;
  readonly #defaultTtlMs: number;
  readonly #minTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #negativeTtlMs: number;
  readonly #policy: OutboundPolicy;
  readonly #now: () => number;
  readonly #entries: LruCache<string, DirectoryState>;
  readonly #inflight = new Map<string, Promise<DirectoryState>>();

  constructor(options: KeyDirectoryOptions = {}) {
    this.#request = options.request ?? outboundRequest;
    this.#timeoutMs = options.timeoutMs ?? 3000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024;
    this.#maxKeys = options.maxKeys ?? 32;
    this.#defaultTtlMs = options.defaultTtlMs ?? 60 * 60 * 1000;
    this.#minTtlMs = options.minTtlMs ?? 60 * 1000;
    this.#maxTtlMs = options.maxTtlMs ?? 24 * 60 * 60 * 1000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 60 * 1000;
    this.#policy = {
      purpose: 'Web Bot Auth key directories',
      requireHttps: options.requireHttps ?? true,
      allowPrivateAddresses: !(options.blockPrivateAddresses ?? true),
    };
    this.#now = options.now ?? Date.now;
    this.#entries = new LruCache(options.maxOrigins ?? 1000);
  }

  /** The cached state of an origin's directory if it is still usable, without fetching. */
  cached(origin: string): DirectoryState | undefined {
    const entry = this.#entries.get(origin);
    if (entry === undefined) return undefined;
    const now = this.#now();
    if (entry.status === 'ready' && entry.freshUntil > now) return entry;
    if (entry.status === 'failed' && entry.retryAt > now) return entry;
    return undefined;
  }

  /** The origin's directory, from cache or fetched (one fetch per origin at a time). */
  load(origin: string): Promise<DirectoryState> {
    const cached = this.cached(origin);
    if (cached !== undefined) return Promise.resolve(cached);
    const running = this.#inflight.get(origin);
    if (running !== undefined) return running;
    const promise = this.#refresh(origin).finally(() => this.#inflight.delete(origin));
    this.#inflight.set(origin, promise);
    return promise;
  }

  async #refresh(origin: string): Promise<DirectoryState> {
    const previous = this.#entries.get(origin);
    let state: DirectoryState;
    try {
      const { keys, ttlMs } = await this.#fetchDirectory(origin);
      state = { status: 'ready', keys, freshUntil: this.#now() + ttlMs };
    } catch (error) {
      const reason = error instanceof DirectoryError ? error.reason : 'directory_unavailable';
      const detail = error instanceof Error ? error.message : String(error);
      if (previous?.status === 'ready' && reason === 'directory_unavailable') {
        // Keep serving the keys we hold; try again after the negative-cache delay.
        state = { ...previous, freshUntil: this.#now() + this.#negativeTtlMs };
      } else {
        state = { status: 'failed', reason, detail, retryAt: this.#now() + this.#negativeTtlMs };
      }
    }
    this.#entries.set(origin, state);
    return state;
  }

  async #fetchDirectory(origin: string): Promise<{ keys: DirectoryKey[]; ttlMs: number }> {
    const url = new URL(DIRECTORY_PATH, origin);
    let response: OutboundResponse;
    try {
      // The outbound module checks the scheme and the address connected to, follows no redirect,
      // and bounds the time and the bytes read.
      response = await this.#request(url, {
        headers: { accept: DIRECTORY_MEDIA_TYPE },
        timeoutMs: this.#timeoutMs,
        maxBytes: this.#maxBytes,
        policy: this.#policy,
      });
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        throw new DirectoryError('agent_url_refused', `Signature-Agent refused: ${error.message}`);
      }
      const timedOut = (error as { timedOut?: boolean }).timedOut === true;
      throw new DirectoryError(
        'directory_unavailable',
        timedOut
          ? `no answer from ${url.origin} within ${this.#timeoutMs} ms`
          : `fetch failed: ${(error as Error).message}`,
      );
    }
    if (response.status !== 200) {
      throw new DirectoryError('directory_unavailable', `the directory answered HTTP ${response.status}`);
    }
    if (response.truncated) {
      throw new DirectoryError(
        'directory_unavailable',
        `the directory is over the ${this.#maxBytes}-byte cap`,
      );
    }
    const text = response.body.toString('utf8');
    let keys: DirectoryKey[];
    try {
      keys = ed25519KeysOf(JSON.parse(text), this.#maxKeys);
    } catch (error) {
      throw new DirectoryError(
        'directory_unavailable',
        `the directory is not a usable JWK Set: ${(error as Error).message}`,
      );
    }
    const maxAge = maxAgeMs(response.headers['cache-control']);
    const ttlMs = Math.min(this.#maxTtlMs, Math.max(this.#minTtlMs, maxAge ?? this.#defaultTtlMs));
    return { keys, ttlMs };
  }
}

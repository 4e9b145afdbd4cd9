// Fetches and caches Web Bot Auth key directories
// (`<origin>/.well-known/http-message-signatures-directory`, a JWK Set). The URL comes from a
// request header, so every fetch is treated as untrusted (the drafts' SSRF section): https only,
// no private, loopback or link-local targets, no redirects, a wall-clock timeout, a byte cap and a
// key-count cap. Results are cached per origin (HTTP max-age within bounds), failures for a short
// while (negative cache), and concurrent fetches of one origin share one request. A failed refresh
// keeps the keys already held: an operator's outage must not revoke its keys everywhere.

import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { LruCache } from '../lru-cache.ts';
import { type DirectoryKey, ed25519KeysOf } from './jwk.ts';

export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

export type FetchLike = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string>; redirect: 'manual' },
) => Promise<Response>;

export interface KeyDirectoryOptions {
  /** Injected in tests to reach a local directory; defaults to the global fetch. */
  fetch?: FetchLike;
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

const PRIVATE_RANGES = (() => {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(net, bits, 'ipv4');
  }
  for (const [net, bits] of [
    ['::', 127],
    ['::ffff:0:0', 96],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(net, bits, 'ipv6');
  }
  return list;
})();

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE_RANGES.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

function maxAgeMs(cacheControl: string | null): number | null {
  if (!cacheControl) return null;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return match ? Number(match[1]) * 1000 : null;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new DirectoryError(
      'directory_unavailable',
      `the directory is ${declared} bytes, over the ${maxBytes}-byte cap`,
    );
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new DirectoryError('directory_unavailable', `the directory is over the ${maxBytes}-byte cap`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class KeyDirectoryCache {
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #maxKeys: number;
  readonly #defaultTtlMs: number;
  readonly #minTtlMs: number;
  readonly #maxTtlMs: number;
  readonly #negativeTtlMs: number;
  readonly #requireHttps: boolean;
  readonly #blockPrivate: boolean;
  readonly #now: () => number;
  readonly #entries: LruCache<string, DirectoryState>;
  readonly #inflight = new Map<string, Promise<DirectoryState>>();

  constructor(options: KeyDirectoryOptions = {}) {
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#timeoutMs = options.timeoutMs ?? 3000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024;
    this.#maxKeys = options.maxKeys ?? 32;
    this.#defaultTtlMs = options.defaultTtlMs ?? 60 * 60 * 1000;
    this.#minTtlMs = options.minTtlMs ?? 60 * 1000;
    this.#maxTtlMs = options.maxTtlMs ?? 24 * 60 * 60 * 1000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 60 * 1000;
    this.#requireHttps = options.requireHttps ?? true;
    this.#blockPrivate = options.blockPrivateAddresses ?? true;
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

  async #checkTarget(url: URL): Promise<void> {
    if (this.#requireHttps && url.protocol !== 'https:') {
      throw new DirectoryError(
        'agent_url_refused',
        `Signature-Agent must be an https URL, got ${url.protocol}`,
      );
    }
    if (!this.#blockPrivate) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost')) {
      throw new DirectoryError('agent_url_refused', 'Signature-Agent names a loopback host');
    }
    // Resolving here and connecting later leaves a window for DNS rebinding; the byte, key and
    // time caps still bound what such a fetch can do.
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
    if (addresses.some(isPrivateAddress)) {
      throw new DirectoryError(
        'agent_url_refused',
        'Signature-Agent resolves to a private, loopback or link-local address',
      );
    }
  }

  async #fetchDirectory(origin: string): Promise<{ keys: DirectoryKey[]; ttlMs: number }> {
    const url = new URL(DIRECTORY_PATH, origin);
    await this.#checkTarget(url);
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(url.href, {
        signal,
        headers: { accept: DIRECTORY_MEDIA_TYPE },
        redirect: 'manual',
      });
    } catch (error) {
      const timedOut = signal.aborted;
      throw new DirectoryError(
        'directory_unavailable',
        timedOut
          ? `no answer from ${url.origin} within ${this.#timeoutMs} ms`
          : `fetch failed: ${(error as Error).message}`,
      );
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new DirectoryError('directory_unavailable', `the directory answered HTTP ${response.status}`);
    }
    let text: string;
    try {
      text = await readCapped(response, this.#maxBytes);
    } catch (error) {
      if (error instanceof DirectoryError) throw error;
      throw new DirectoryError(
        'directory_unavailable',
        signal.aborted
          ? `the directory body did not arrive within ${this.#timeoutMs} ms`
          : (error as Error).message,
      );
    }
    let keys: DirectoryKey[];
    try {
      keys = ed25519KeysOf(JSON.parse(text), this.#maxKeys);
    } catch (error) {
      throw new DirectoryError(
        'directory_unavailable',
        `the directory is not a usable JWK Set: ${(error as Error).message}`,
      );
    }
    const maxAge = maxAgeMs(response.headers.get('cache-control'));
    const ttlMs = Math.min(this.#maxTtlMs, Math.max(this.#minTtlMs, maxAge ?? this.#defaultTtlMs));
    return { keys, ttlMs };
  }
}

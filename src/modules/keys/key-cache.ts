// The verdicts of usable API keys, kept in memory so that a request with a known key costs no
// statement (every ingest request ran one: about 11 per group commit, and on PGlite on the
// server's own thread). Exact, not timed: a verdict is kept until the key changes, and a change
// reaches the cache as follows (docs/decisions.md, "API key verdicts are cached until a change"):
//
// - in this process, revokeKey tells every cache at once (key-invalidation.ts);
// - in other processes, the revoking statement's NOTIFY on KEYS_CHANNEL, sent when it commits,
//   which each cache hears through its LISTEN (on PGlite, one process, the same in-process);
// - while that LISTEN is not in place (before it first is, and from its loss until it is again)
//   the cache is not used at all, and it starts empty each time it is: what was said meanwhile is
//   lost, so nothing from before may be trusted.
//
// Only usable keys are kept (never an unknown, revoked or expired one, so guessing costs the same
// statement as before and fills nothing), under the SHA-256 of the key, never the key itself.
// Expiry is checked on every use; the last-use time is written at most once a minute, as before.
import type { Database } from '../../db/database.ts';
import { hashApiKey, parseApiKey } from './key-format.ts';
import { registerKeyCache } from './key-invalidation.ts';
import { KEYS_CHANNEL } from './queries.ts';
import { type ApiKeyInfo, checkKeyHash, type KeyCheck, LAST_USED_EVERY_MS, recordKeyUse } from './service.ts';

/** The checks a request's authentication needs (tests and the bench pass their own cache). */
export interface ApiKeyChecker {
  check(presented: string, now?: Date): Promise<KeyCheck>;
}

interface Entry {
  verdict: { ok: true; key: ApiKeyInfo };
  expiresMs: number | null;
  /** When this process last recorded a use (or the row said one was recorded). */
  lastUsedMs: number;
}

/** More distinct usable keys than this in use at once is not a case worth memory: start again. */
const MAX_ENTRIES = 10_000;

const MALFORMED: KeyCheck = { ok: false, reason: 'malformed' };

export interface ApiKeyCacheOptions {
  /** Each payload heard on KEYS_CHANNEL, after the cache acted on it (tests wait on it). */
  onNotification?: (payload: string) => void;
  /** Each time the LISTEN is in place (true) or lost (false). */
  onConnection?: (connected: boolean) => void;
}

export class ApiKeyCache implements ApiKeyChecker {
  readonly #db: Database;
  readonly #options: ApiKeyCacheOptions;
  /** By the key's SHA-256 (base64). */
  readonly #entries = new Map<string, Entry>();
  /** A key's id to its entry's name in #entries. */
  readonly #byId = new Map<string, string>();
  /** Whether the LISTEN is in place: only then is the cache read or filled. */
  #listening = false;
  /**
   * Counts every forgetting and every change of #listening. A verdict read from the database is
   * kept only if the count did not move while it was read: a revocation heard meanwhile may be
   * about that very key, whose row was read before the revocation committed.
   */
  #generation = 0;
  #unlisten: (() => Promise<void>) | null = null;
  #unregister: (() => void) | null = null;
  #closed = false;

  constructor(db: Database, options: ApiKeyCacheOptions = {}) {
    this.#db = db;
    this.#options = options;
  }

  /** Whether verdicts are being kept now (the LISTEN is in place). */
  get active(): boolean {
    return this.#listening;
  }

  /**
   * Listens for changes; until that works the cache is off and every check reads the key's row.
   * Rejects when the LISTEN cannot be set up (the cache then stays off).
   */
  async start(): Promise<void> {
    if (this.#unregister !== null) return;
    this.#unregister = registerKeyCache(this);
    this.#unlisten = await this.#db.listen(
      KEYS_CHANNEL,
      (payload) => {
        this.forget(payload === '' ? null : payload);
        this.#options.onNotification?.(payload);
      },
      {
        onConnection: (connected) => {
          this.#listening = connected && !this.#closed;
          this.#clear();
          if (!this.#closed) this.#options.onConnection?.(connected);
        },
        // It only saves statements: an app left unclosed must not keep its process alive.
        background: true,
      },
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unregister?.();
    this.#listening = false;
    this.#clear();
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    await unlisten?.();
  }

  /** Forgets the verdict of the key with this id (null: of every key). */
  forget(keyId: string | null): void {
    this.#generation++;
    if (keyId === null) {
      this.#clear();
      return;
    }
    const name = this.#byId.get(keyId);
    if (name === undefined) return;
    this.#byId.delete(keyId);
    this.#entries.delete(name);
  }

  async check(presented: string, now = new Date()): Promise<KeyCheck> {
    // A kept key was well formed, so a hit needs no format check. (A malformed key is never
    // kept: it misses, then is refused.)
    const secretHash = hashApiKey(presented);
    const name = secretHash.toString('base64');
    const nowMs = now.getTime();
    if (this.#listening) {
      const entry = this.#entries.get(name);
      if (entry !== undefined) {
        if (entry.expiresMs === null || entry.expiresMs > nowMs) {
          if (nowMs - entry.lastUsedMs >= LAST_USED_EVERY_MS) {
            entry.lastUsedMs = nowMs; // before the await: concurrent requests write once
            await recordKeyUse(this.#db, entry.verdict.key.id);
          }
          return entry.verdict;
        }
        // Expired since it was kept: the row gives the answer (and the reason).
        this.forget(entry.verdict.key.id);
      }
    }
    if (!parseApiKey(presented)) return MALFORMED;
    const generation = this.#generation;
    const { check, lastUsedMs } = await checkKeyHash(this.#db, secretHash, now);
    if (check.ok && this.#listening && generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#clear();
      Object.freeze(check.key);
      this.#entries.set(name, {
        verdict: check,
        expiresMs: check.key.expiresAt?.getTime() ?? null,
        lastUsedMs,
      });
      this.#byId.set(check.key.id, name);
    }
    return check;
  }

  #clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#byId.clear();
  }
}

// The key caches of this process (key-cache.ts), so that a change made here reaches them at once,
// before any other request runs: exact on PGlite, where every change goes through the one
// process (the CLI talks to the server through its control socket). Other processes hear of it
// through the NOTIFY the changing statement sends (queries.ts).

/** What a cache does when told that a key changed: forgets its verdict (null: every verdict). */
export interface KeyForgetter {
  forget(keyId: string | null): void;
}

const caches = new Set<KeyForgetter>();

export function registerKeyCache(cache: KeyForgetter): () => void {
  caches.add(cache);
  return () => {
    caches.delete(cache);
  };
}

/** Called after a key's row changed (revoked), by the code that changed it. */
export function forgetKeyInProcess(keyId: string | null): void {
  for (const cache of caches) cache.forget(keyId);
}

// What an Idempotency-Key is bound to. Both the routes that read the header and the services that
// store the key compare it, so it lives outside src/http, which services never import.
import { createHash } from 'node:crypto';

/** The hash of a request's parsed body, so a retry under the same key must send the same body. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

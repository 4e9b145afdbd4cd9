// The optional bearer token of /metrics (DOCWRIGHT_METRICS_TOKEN), compared in constant time:
// both sides are hashed first, so neither the length nor a prefix of the token leaks by timing.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether an Authorization header carries the token; always true when no token is configured. */
export function metricsTokenAccepted(token: string | null, authorization: string | undefined): boolean {
  if (token === null) return true;
  const match = authorization === undefined ? null : /^Bearer +(\S+) *$/i.exec(authorization);
  if (match === null) return false;
  return timingSafeEqual(digest(match[1]!), digest(token));
}

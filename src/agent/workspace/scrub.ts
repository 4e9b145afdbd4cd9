// Removes the code-host credential from text git printed before that text leaves the workspace (an
// error message, a log line, an event). Git does not echo extra headers, but a server may reflect
// them, and curl's verbose output would: every surfaced message passes through here anyway.
import { scrubSecrets } from '../../util/logger.ts';

const REDACTED = '[redacted]';
/** Shorter values would match ordinary words; no real token is this short. */
const MIN_SECRET_LENGTH = 6;

/**
 * The strings to remove for one Authorization header value: the value, the credential after the
 * scheme and, for Basic, the password inside the base64 (GitHub's x-access-token:TOKEN form).
 */
export function secretsOfAuthorization(authorization: string | null | undefined): string[] {
  if (!authorization) return [];
  const secrets = [authorization];
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (match) {
    const [, scheme, credential] = match as unknown as [string, string, string];
    secrets.push(credential);
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) secrets.push(decoded, decoded.slice(colon + 1));
    }
  }
  return secrets;
}

export type Scrubber = (text: string) => string;

/** A scrubber for the given secrets, longest first so a value inside another is not half-removed. */
export function createScrubber(secrets: readonly (string | null | undefined)[]): Scrubber {
  const known = [...new Set(secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => {
    let out = text;
    for (const secret of known) out = out.split(secret).join(REDACTED);
    // Whatever still looks like an authorization value (a token we were not told about).
    return scrubSecrets(out);
  };
}

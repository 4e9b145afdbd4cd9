// Protection against cross-site request forgery for every dashboard change, in two layers:
// 1. a token in each form (field _csrf) or fetch (header x-csrf-token), derived from the session
//    cookie (or, before sign-in, from a random pre-session cookie) with HMAC-SHA256: another site
//    can neither read it nor compute it;
// 2. the Origin header, when the browser sends one, must be the dashboard's own origin.
// The cookies are also SameSite=Lax, which keeps them off most cross-site requests anyway.
import { createHmac } from 'node:crypto';
import { accountErrors } from './errors.ts';
import { sameText } from './tokens.ts';

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** The token for forms of the browser that holds this cookie value (session or pre-session). */
export function csrfTokenFor(cookieValue: string): string {
  return createHmac('sha256', cookieValue).update('docwright dashboard csrf v1').digest('base64url');
}

export interface CsrfCheck {
  /** The session or pre-session cookie value the request carries; null when it has none. */
  cookieValue: string | null;
  /** The token the request presents (form field or header). */
  presented: unknown;
  /** The Origin header, if any. */
  origin: string | undefined;
  /** Origins this dashboard is served from (the public URL's and the request's own). */
  allowedOrigins: readonly string[];
}

export function assertCsrf(check: CsrfCheck): void {
  if (check.origin !== undefined && check.origin !== 'null' && !check.allowedOrigins.includes(check.origin)) {
    throw accountErrors.csrf_failed(
      `This change came from another site (${check.origin.slice(0, 100)}) and was refused.`,
    );
  }
  if (check.origin === 'null') {
    throw accountErrors.csrf_failed('This change came from an opaque origin and was refused.');
  }
  if (
    check.cookieValue === null ||
    typeof check.presented !== 'string' ||
    !sameText(check.presented, csrfTokenFor(check.cookieValue))
  ) {
    throw accountErrors.csrf_failed(
      'This form has expired or did not come from this dashboard. Reload the page and try again.',
    );
  }
}

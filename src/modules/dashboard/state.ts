// Who is asking, for every dashboard request: the session from the cookie (or none), and the
// CSRF token of this browser. Before sign-in the token is bound to a random pre-session cookie,
// so the sign-in and setup forms are protected too.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import {
  accountErrors,
  assertCsrf,
  CSRF_FIELD,
  CSRF_HEADER,
  csrfTokenFor,
  looksLikeToken,
  newToken,
  resumeSession,
  SESSION_MAX_SECONDS,
  type Session,
} from '../accounts/index.ts';

export const SESSION_COOKIE = 'dw_session';
export const PRE_SESSION_COOKIE = 'dw_presession';

export interface DashboardState {
  session: Session | null;
  csrfToken: string;
  /** The cookie value the CSRF token is derived from. */
  csrfBinding: string;
}

/** Route config: 'public' pages work without a session (setup, sign-in, invitations). */
export type DashboardAccess = 'public' | 'signed-in';

declare module 'fastify' {
  interface FastifyContextConfig {
    dashboard?: DashboardAccess;
  }
  interface FastifyRequest {
    dashboardState: DashboardState | null;
  }
}

export interface CookieSettings {
  /** Secure cookies when the dashboard is served over https. */
  secure: boolean;
}

export function cookieOptions(settings: CookieSettings, maxAgeSeconds: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: settings.secure,
    maxAge: maxAgeSeconds,
  };
}

export function setSessionCookie(reply: FastifyReply, settings: CookieSettings, session: Session): void {
  reply.setCookie(SESSION_COOKIE, session.token, cookieOptions(settings, SESSION_MAX_SECONDS));
}

export function clearSessionCookie(reply: FastifyReply, settings: CookieSettings): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  void settings;
}

export async function loadState(
  db: Database,
  settings: CookieSettings,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<DashboardState> {
  const session = await resumeSession(db, request.cookies[SESSION_COOKIE]);
  if (session) return { session, csrfToken: csrfTokenFor(session.token), csrfBinding: session.token };
  let pre = request.cookies[PRE_SESSION_COOKIE];
  if (!looksLikeToken(pre)) {
    pre = newToken();
    reply.setCookie(PRE_SESSION_COOKIE, pre, cookieOptions(settings, 24 * 3600));
  }
  return { session: null, csrfToken: csrfTokenFor(pre), csrfBinding: pre };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses a change without this browser's CSRF token or from another origin. */
export function checkCsrf(request: FastifyRequest, publicOrigin: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const state = request.dashboardState;
  const body = request.body as Record<string, unknown> | undefined | null;
  const presented =
    (body && typeof body === 'object' ? body[CSRF_FIELD] : undefined) ?? request.headers[CSRF_HEADER];
  assertCsrf({
    cookieValue: state?.csrfBinding ?? null,
    presented,
    origin: request.headers.origin,
    allowedOrigins: [publicOrigin, `${request.protocol}://${request.host}`],
  });
}

/** The signed-in session, or not_signed_in. */
export function requireSession(request: FastifyRequest): Session {
  const session = request.dashboardState?.session;
  if (!session) throw accountErrors.not_signed_in('Sign in to use the dashboard.');
  return session;
}

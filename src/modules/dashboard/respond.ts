// Sends dashboard pages with the headers every page gets: no caching (pages may show a key or an
// invitation link once), no framing, no sniffing, and a content security policy that allows only
// this server's own scripts and styles.
import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.ts';

export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export function sendPage(reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(body.text);
}

/** A redirect after a successful form post (303: the browser follows it with GET). */
export function redirectAfterPost(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('cache-control', 'no-store').redirect(location, 303);
}

/** Only same-site paths are followed after sign-in; anything else goes to the projects page. */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string') return '/app/projects';
  if (!next.startsWith('/app') || next.startsWith('//') || next.includes('\\') || /[\r\n]/.test(next)) {
    return '/app/projects';
  }
  return next;
}

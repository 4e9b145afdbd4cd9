// /app/setup, /app/sign-in, /app/sign-out, /app/invite: accounts and sessions from the browser.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import {
  acceptInvitation,
  completeSetup,
  endSession,
  hasUsers,
  signIn,
  startSession,
} from '../../accounts/index.ts';
import { type DashboardContext, fieldErrorsOf, formOf, frameOf } from '../context.ts';
import { redirectAfterPost, safeNextPath, sendPage } from '../respond.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../state.ts';
import { invitationPage, setupDonePage, setupPage, signInPage } from '../views/account-views.ts';

const PUBLIC = { dashboard: 'public' as const };

export function registerAccountRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;

  app.get('/', { config: PUBLIC }, async (request, reply) => {
    if (request.dashboardState?.session) return reply.redirect('/app/projects');
    return reply.redirect((await hasUsers(db)) ? '/app/sign-in' : '/app/setup');
  });

  app.get('/setup', { config: PUBLIC }, async (request, reply) => {
    const frame = frameOf(request, { title: 'Set up' });
    if (await hasUsers(db)) return sendPage(reply, setupDonePage(frame));
    return sendPage(reply, setupPage(frame, {}));
  });

  app.post('/setup', { config: PUBLIC }, async (request, reply) => {
    const form = formOf(request);
    try {
      const owner = await completeSetup(db, {
        token: form.token,
        email: form.email,
        password: form.password,
        confirm: form.confirm,
      });
      setSessionCookie(reply, ctx.cookies, await startSession(db, owner));
      return redirectAfterPost(reply, '/app/projects?notice=welcome');
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const frame = frameOf(request, { title: 'Set up' });
      if (error.code === 'setup_done') return sendPage(reply, setupDonePage(frame), error.status);
      return sendPage(
        reply,
        setupPage(frame, { email: form.email ?? '', error: error.message, errors: fieldErrorsOf(error) }),
        error.status,
      );
    }
  });

  app.get<{ Querystring: { next?: string } }>('/sign-in', { config: PUBLIC }, async (request, reply) => {
    if (request.dashboardState?.session) return reply.redirect(safeNextPath(request.query.next));
    const noAccounts = !(await hasUsers(db));
    const frame = frameOf(request, { title: 'Sign in' });
    return sendPage(reply, signInPage(frame, { next: safeNextPath(request.query.next), noAccounts }));
  });

  app.post('/sign-in', { config: PUBLIC }, async (request, reply) => {
    const form = formOf(request);
    try {
      const session = await signIn(db, { email: form.email, password: form.password, clientIp: request.ip });
      // A session this browser held before (another account) ends with the new sign-in.
      await endSession(db, request.cookies[SESSION_COOKIE]);
      setSessionCookie(reply, ctx.cookies, session);
      return redirectAfterPost(reply, safeNextPath(form.next));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const frame = frameOf(request, { title: 'Sign in' });
      reply.headers(error.headers);
      return sendPage(
        reply,
        signInPage(frame, { email: form.email ?? '', next: safeNextPath(form.next), error: error.message }),
        error.status,
      );
    }
  });

  app.post('/sign-out', { config: PUBLIC }, async (request, reply) => {
    await endSession(db, request.cookies[SESSION_COOKIE]);
    clearSessionCookie(reply, ctx.cookies);
    return redirectAfterPost(reply, '/app/sign-in?notice=signed-out');
  });

  app.get('/invite', { config: PUBLIC }, async (request, reply) => {
    return sendPage(reply, invitationPage(frameOf(request, { title: 'Join' }), {}));
  });

  app.post('/invite', { config: PUBLIC }, async (request, reply) => {
    const form = formOf(request);
    try {
      const user = await acceptInvitation(db, {
        token: form.token,
        password: form.password,
        confirm: form.confirm,
      });
      // Whoever was signed in in this browser is replaced by the new account.
      await endSession(db, request.cookies[SESSION_COOKIE]);
      setSessionCookie(reply, ctx.cookies, await startSession(db, user));
      return redirectAfterPost(reply, '/app/projects?notice=joined');
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const frame = frameOf(request, { title: 'Join' });
      return sendPage(
        reply,
        invitationPage(frame, { error: error.message, errors: fieldErrorsOf(error) }),
        error.status,
      );
    }
  });
}

// The dashboard, served by the API's own server: server-rendered pages under /app, the scripts'
// JSON and live streams under /api/dashboard, static files under /app/assets. Pages and their
// scripts authenticate with the session cookie, never with an API key; every change carries the
// session's CSRF token. See docs/dashboard.md.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../errors/app-error.ts';
import { accountErrors, hasUsers } from '../accounts/index.ts';
import type { AgentCatalog, UnrecognizedAgentCounter } from '../analytics/index.ts';
import { type DashboardContext, type DashboardOptions, frameOf } from './context.ts';
import { sendPage } from './respond.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerAnalyticsPageRoutes } from './routes/analytics-routes.ts';
import { registerAutomationRoutes } from './routes/automation-routes.ts';
import { registerJobRoutes } from './routes/job-routes.ts';
import { registerKeyRoutes } from './routes/key-routes.ts';
import { registerLiveRoutes } from './routes/live-routes.ts';
import { registerProjectRoutes } from './routes/project-routes.ts';
import { registerTeamRoutes } from './routes/team-routes.ts';
import { registerUsagePageRoutes } from './routes/usage-routes.ts';
import { checkCsrf, loadState } from './state.ts';
import { errorPage } from './views/account-views.ts';
import type { AgentListInfo } from './views/analytics-view.ts';

export type { DashboardOptions };

const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
// Chart.js is served from the installed package: no CDN, works offline.
const CHART_JS_DIR = dirname(createRequire(import.meta.url).resolve('chart.js'));

export interface DashboardPluginOptions extends DashboardOptions {
  agentCatalog?: AgentCatalog;
  /** The agent list in use (its size and synced version), shown on the analytics page. */
  agentList?: () => AgentListInfo;
  /** The process's pending unknown-agent counts, written before the analytics page reads them. */
  unrecognized?: UnrecognizedAgentCounter;
  /** Live streams' keep-alive period (tests shorten it). */
  liveKeepAliveMs?: number;
}

const TITLES: Record<number, string> = {
  400: 'That did not work',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That did not work',
  429: 'Too many attempts',
};

export async function registerDashboard(
  app: FastifyInstance,
  options: DashboardPluginOptions,
): Promise<void> {
  const publicOrigin = new URL(options.publicUrl).origin;
  const ctx: DashboardContext = {
    ...options,
    publicOrigin,
    cookies: { secure: publicOrigin.startsWith('https:') },
  };

  // Static files: no session lookup, no cookies.
  await app.register(async (assets) => {
    assets.addHook('onRoute', hideFromOpenApi);
    await assets.register(fastifyStatic, {
      root: ASSETS_DIR,
      prefix: '/app/assets/',
      decorateReply: false,
      index: false,
      wildcard: false,
    });
    await assets.register(fastifyStatic, {
      root: CHART_JS_DIR,
      prefix: '/app/assets/vendor/',
      decorateReply: false,
      index: false,
      allowedPath: (path) => path === '/chart.umd.min.js' || path === '/chart.umd.min.js.map',
    });
  });

  await app.register(async (scope) => {
    scope.addHook('onRoute', hideFromOpenApi);
    await scope.register(fastifyCookie);
    // Forms post application/x-www-form-urlencoded; only dashboard routes accept it.
    await scope.register(fastifyFormbody, { bodyLimit: 256 * 1024 });
    scope.decorateRequest('dashboardState', null);
    scope.addHook('onRequest', async (request, reply) => {
      request.dashboardState = await loadState(ctx.db, ctx.cookies, request, reply);
    });
    scope.addHook('preHandler', async (request, reply) => {
      checkCsrf(request, publicOrigin);
      if (request.routeOptions.config.dashboard === 'public' || request.dashboardState?.session) return;
      if (request.method === 'GET' && !request.url.startsWith('/api/')) {
        const target = (await hasUsers(ctx.db))
          ? `/app/sign-in?next=${encodeURIComponent(request.url)}`
          : '/app/setup';
        return reply.redirect(target);
      }
      throw accountErrors.not_signed_in('Sign in to use the dashboard.');
    });

    scope.get('/', { config: { dashboard: 'public' } }, async (_request, reply) => reply.redirect('/app'));

    await scope.register(
      async (pages) => {
        pages.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply));
        pages.setNotFoundHandler((request, reply) =>
          sendPage(
            reply,
            errorPage(frameOf(request, { title: 'Not found' }), {
              status: 404,
              title: 'Not found',
              message: `There is no page at ${request.url.split('?')[0]}.`,
            }),
            404,
          ),
        );
        registerAccountRoutes(pages, ctx);
        registerTeamRoutes(pages, ctx);
        registerProjectRoutes(pages, ctx);
        registerKeyRoutes(pages, ctx);
        registerJobRoutes(pages, ctx);
        registerUsagePageRoutes(pages, ctx);
        registerAutomationRoutes(pages, ctx);
        registerAnalyticsPageRoutes(pages, ctx, {
          ...(options.agentCatalog ? { agentCatalog: options.agentCatalog } : {}),
          ...(options.agentList ? { agentList: options.agentList } : {}),
          ...(options.unrecognized ? { unrecognized: options.unrecognized } : {}),
        });
      },
      { prefix: '/app' },
    );

    // JSON and event streams keep the API's error body ({error, code, requestId}).
    await scope.register(
      async (api) =>
        registerLiveRoutes(api, ctx, options.liveKeepAliveMs ? { keepAliveMs: options.liveKeepAliveMs } : {}),
      { prefix: '/api/dashboard' },
    );
  });
}

/** The dashboard's routes are not an API to build on: they stay out of /openapi.json. */
function hideFromOpenApi(route: RouteOptions): void {
  route.schema = { ...route.schema, hide: true };
}

function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = error instanceof AppError ? error : null;
  const status = known?.status ?? (error.statusCode && error.statusCode < 500 ? error.statusCode : 500);
  if (status >= 500) request.log.error({ err: error }, 'dashboard page failed');
  if (known?.code === 'not_signed_in') return reply.redirect('/app/sign-in');
  if (known) reply.headers(known.headers);
  const message =
    status >= 500
      ? `Something went wrong on the server. Quote request id ${request.id} when reporting it.`
      : known
        ? known.message
        : 'The request could not be read.';
  const title = status >= 500 ? 'Server error' : (TITLES[status] ?? 'That did not work');
  return sendPage(reply, errorPage(frameOf(request, { title }), { status, title, message }), status);
}

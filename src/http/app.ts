// Builds the HTTP application without listening, so tests drive it with inject() and the
// server entry point adds listen() and shutdown around it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.ts';
import { registerMcpRoutes } from '../mcp/routes.ts';
import { installHttpMetrics } from '../metrics/http-metrics.ts';
import { groupCommitObserver, recordOutcomeObserver } from '../metrics/ingest-metrics.ts';
import { createMetrics, type DocwrightMetrics } from '../metrics/registry.ts';
import { type CollectRouteOptions, registerCollectRoutes } from '../modules/analytics/collect/routes.ts';
import { liveAgentCatalog, UnrecognizedAgentCounter } from '../modules/analytics/index.ts';
import { type IngestRouteOptions, registerIngestRoutes } from '../modules/analytics/ingest/routes.ts';
import { registerAnalyticsRoutes } from '../modules/analytics/routes.ts';
import { registerAutomationRoutes } from '../modules/automations/routes.ts';
import { type DashboardPluginOptions, registerDashboard } from '../modules/dashboard/index.ts';
import { registerJobChecksRoutes } from '../modules/jobs/checks/routes.ts';
import { registerJobCiRoutes } from '../modules/jobs/ci/routes.ts';
import { registerJobDiffRoutes } from '../modules/jobs/diff/routes.ts';
import { registerJobEventRoutes } from '../modules/jobs/events/routes.ts';
import { registerJobRoutes } from '../modules/jobs/routes.ts';
import { ApiKeyCache, type ApiKeyChecker } from '../modules/keys/index.ts';
import { registerUsageRoutes } from '../modules/usage/routes.ts';
import type { Logger } from '../util/logger.ts';
import { authenticate, isApiPath } from './auth.ts';
import type { App, AppContext } from './context.ts';
import { installErrorHandling } from './error-handler.ts';
import { answerFrameworkError, clientErrorHandler, newRequestId } from './framework-errors.ts';
import { registerHealthRoutes } from './health.ts';
import { registerOpenApi } from './openapi.ts';
import { checkQueryText, queryTextRulesOf } from './query-text.ts';
import { DebugRequestLogController } from './request-log.ts';
import { checkFormText, checkUrlText, jsonValueError, jsonValueProblem } from './request-text.ts';
import { validatorCompiler } from './validation.ts';

export interface BuildAppOptions extends AppContext {
  logger: Logger;
  /** The dashboard under /app (serve always adds it; API tests leave it out). */
  dashboard?: Pick<DashboardPluginOptions, 'secretKey' | 'agentCatalog' | 'liveKeepAliveMs' | 'repositories'>;
  /** Ingest settings (tests: a writer whose stats they read, a small pending bound). */
  ingest?: IngestRouteOptions;
  /** Browser-script settings (tests: a small rate limit, a fixed clock). */
  collect?: CollectRouteOptions;
  /** The process's metrics (serve shares them with its worker; default: a registry of the app's own). */
  metrics?: DocwrightMetrics;
  /** DOCWRIGHT_METRICS_TOKEN: when set, GET /metrics needs it as a bearer token. */
  metricsToken?: string | null;
  /** DOCWRIGHT_TRUSTED_PROXIES: whose X-Forwarded-For gives the client address (default: nobody's). */
  trustedProxies?: readonly string[];
  /** The API key checks (tests: a cache they watch); default: a cache of the app's own, closed with it. */
  keys?: ApiKeyChecker;
}

/**
 * The app's cache of API key verdicts (modules/keys/key-cache.ts). If its LISTEN cannot be set up,
 * the app still serves: each request then reads its key's row, as without a cache.
 */
async function openKeyCache(db: Database, log: FastifyBaseLogger): Promise<ApiKeyCache> {
  const cache = new ApiKeyCache(db, {
    onConnection: (connected) => {
      if (!connected) log.warn('API key cache off until its LISTEN connection is back');
    },
  });
  try {
    await cache.start();
  } catch (error) {
    log.warn({ err: error }, 'API key cache off: LISTEN failed; every request reads its key');
  }
  return cache;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const {
    logger,
    ingest,
    collect,
    dashboard,
    metrics: shared,
    metricsToken,
    trustedProxies,
    keys: givenKeys,
    ...context
  } = options;
  const metrics = shared ?? createMetrics();
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: newRequestId,
    requestIdHeader: false, // never trust a client's id: it would let callers forge log lines
    logController: new DebugRequestLogController(),
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    // What the router and Node's parser refuse is answered in the error contract too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: clientErrorHandler(logger as FastifyBaseLogger),
    // request.ip is the connection's address unless it is a listed proxy (config/trusted-proxies.ts).
    ...(trustedProxies && trustedProxies.length > 0 ? { trustProxy: [...trustedProxies] } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies by default: a form or text body on a JSON route is a 415, not a 400 about
  // its shape. Routes that take other types (ingestion) register their own parsers.
  app.removeContentTypeParser('text/plain');

  // POST .../cancel and .../archive take no body; clients often still send Content-Type:
  // application/json with an empty body, which Fastify's parser refuses. Empty means "no body";
  // routes that need one say so through their schema.
  // Every JSON body is also held to request-text.ts's limits (depth, NUL) as it is parsed.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error);
      const problem = jsonValueProblem(value, text);
      done(problem === null ? null : jsonValueError(problem), value);
    });
  });

  let keys = givenKeys;
  if (keys === undefined) {
    const cache = await openKeyCache(context.db, app.log);
    app.addHook('onClose', async () => cache.close());
    keys = cache;
  }

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Before authentication, which may look the project up.
    checkUrlText(request);
    if (isApiPath(request.url) && request.routeOptions.url !== undefined) {
      await authenticate(keys, request);
    }
  });

  // Ajv would read "1e2" as 100 and a repeated parameter as an array: refuse both, on every route,
  // before validation, from what each route's querystring schema declares.
  app.addHook('onRoute', (route) => {
    const rules = queryTextRulesOf(route.schema?.querystring);
    if (rules === null) return;
    const existing = route.preValidation;
    route.preValidation = [...(existing ? [existing].flat() : []), checkQueryText(rules)];
  });

  app.addHook('preValidation', async (request) => checkFormText(request));

  installErrorHandling(app);
  await registerOpenApi(app, context.config.publicUrl);
  registerHealthRoutes(app, context.db);
  installHttpMetrics(app, { metrics, db: context.db, token: metricsToken ?? null });
  registerJobRoutes(app, context);
  registerJobEventRoutes(app, context);
  registerJobDiffRoutes(app, context);
  registerUsageRoutes(app, context);
  registerJobChecksRoutes(app, context);
  registerJobCiRoutes(app, context);
  registerAutomationRoutes(app, context);
  // Pending counts of the unknown-agents report, written every few seconds and at close.
  const unrecognized = new UnrecognizedAgentCounter(context.db, { logger: app.log });
  app.addHook('onClose', async () => unrecognized.close());
  // Operator and category of the agents in the exports come from the list classification uses,
  // extra lists and the synced version included.
  const classificationContext = context.classification;
  const agentCatalogOption = classificationContext
    ? { agentCatalog: liveAgentCatalog(classificationContext) }
    : {};
  registerAnalyticsRoutes(app, context, { ...agentCatalogOption, unrecognized });
  registerMcpRoutes(app, context, { ...agentCatalogOption, keys });
  const classification = context.classification ? { classification: context.classification } : {};
  registerIngestRoutes(app, context, {
    ...classification,
    onRecords: recordOutcomeObserver(metrics, 'api'),
    unrecognized,
    ...ingest,
    writerOptions: { observer: groupCommitObserver(metrics, 'api'), ...ingest?.writerOptions },
  });
  registerCollectRoutes(app, context, {
    ...classification,
    onRecords: recordOutcomeObserver(metrics, 'script'),
    ...collect,
    writerOptions: { observer: groupCommitObserver(metrics, 'script'), ...collect?.writerOptions },
  });
  if (dashboard) {
    await registerDashboard(app, {
      ...agentCatalogOption,
      unrecognized,
      ...(classificationContext
        ? {
            agentList: () => ({
              agents: classificationContext.agents.length,
              synced: classificationContext.agentList,
            }),
          }
        : {}),
      db: context.db,
      publicUrl: context.config.publicUrl,
      jobs: context.config,
      ...(context.onJobQueued ? { onJobQueued: context.onJobQueued } : {}),
      ...dashboard,
    });
  }
  await app.ready();
  return app;
}

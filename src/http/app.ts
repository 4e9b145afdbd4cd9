// Builds the HTTP application without listening, so tests drive it with inject() and the
// server entry point adds listen() and shutdown around it.
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { registerAnalyticsRoutes } from '../modules/analytics/routes.ts';
import { registerJobRoutes } from '../modules/jobs/routes.ts';
import type { Logger } from '../util/logger.ts';
import { authenticate, isApiPath } from './auth.ts';
import type { App, AppContext } from './context.ts';
import { installErrorHandling } from './error-handler.ts';
import { registerHealthRoutes } from './health.ts';
import { registerOpenApi } from './openapi.ts';

export interface BuildAppOptions extends AppContext {
  logger: Logger;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { logger, ...context } = options;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomUUID().replaceAll('-', '')}`,
    requestIdHeader: false, // never trust a client's id: it would let callers forge log lines
    bodyLimit: 1024 * 1024,
    // Ajv coerces query strings to the declared types; unknown body fields are ignored.
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (isApiPath(request.url) && request.routeOptions.url !== undefined) {
      await authenticate(context.db, request);
    }
  });

  installErrorHandling(app);
  await registerOpenApi(app, context.config.publicUrl);
  registerHealthRoutes(app, context.db);
  registerJobRoutes(app, context);
  registerAnalyticsRoutes(app, context);
  await app.ready();
  return app;
}

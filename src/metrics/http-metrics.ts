// GET /metrics and the HTTP latency histogram, installed on every app. The histogram is labelled by
// the route's pattern (/v2/agent/:projectId/job/:id), never by the URL a client sent, so project
// ids, job ids and keys never become label values, and the number of series stays fixed.
import { Type } from 'typebox';
import type { Database } from '../db/database.ts';
import type { App } from '../http/context.ts';
import { addDatabaseGauges } from './database-gauges.ts';
import { metricsErrors } from './errors.ts';
import type { DocwrightMetrics } from './registry.ts';
import { metricsTokenAccepted } from './token.ts';

export interface HttpMetricsOptions {
  metrics: DocwrightMetrics;
  db: Database;
  /** DOCWRIGHT_METRICS_TOKEN: when set, /metrics wants "Authorization: Bearer <token>". */
  token: string | null;
}

/** Requests that matched no route share one label, whatever their path. */
export const UNMATCHED_ROUTE = 'unmatched';

export function installHttpMetrics(app: App, options: HttpMetricsOptions): void {
  const { metrics, db, token } = options;
  addDatabaseGauges(metrics, db);

  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequestSeconds.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status_class: `${Math.floor(reply.statusCode / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
  });

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Metrics in the Prometheus text format',
        description:
          'HTTP latency by route, jobs by status, the job queue, agent steps and tokens, ingestion and group-commit figures of this process (see docs/deployment.md#metrics). No key needed, unless the server sets DOCWRIGHT_METRICS_TOKEN: then send "Authorization: Bearer <token>".',
        response: {
          200: {
            description: 'The Prometheus text exposition format (version 0.0.4).',
            content: { 'text/plain': { schema: Type.String() } },
          },
          401: { $ref: 'ErrorBody#' },
        },
      },
    },
    async (request, reply) => {
      if (!metricsTokenAccepted(token, request.headers.authorization)) {
        throw metricsErrors.metrics_token_required(
          'This server protects /metrics: send "Authorization: Bearer <DOCWRIGHT_METRICS_TOKEN>".',
          { headers: { 'www-authenticate': 'Bearer realm="docwright-metrics"' } },
        );
      }
      const text = await metrics.registry.metrics();
      return reply
        .header('content-type', metrics.registry.contentType)
        .header('cache-control', 'no-store')
        .send(text);
    },
  );
}

// GET /v2/agent/{projectId}/usage: what the project's agent jobs cost, per day, model or job, in
// JSON or (Accept: text/csv) CSV. Additive to the contract (docs/cost-and-budgets.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  ProjectParamsSchema,
  toCsv,
  UsageQuerySchema,
  type UsageReport,
  UsageReportSchema,
  usageCsvColumns,
  usageCsvRow,
} from '../../contract/index.ts';
import type { App, AppContext } from '../../http/context.ts';
import { errorResponses } from '../../http/openapi.ts';
import { exportFormat } from '../analytics/index.ts';
import { exportUsage } from './report.ts';

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

export function registerUsageRoutes(app: App, context: AppContext): void {
  const { db } = context;
  app.addSchema(UsageReportSchema);

  app.get(
    '/v2/agent/:projectId/usage',
    {
      config: { access: 'read' },
      // The same URL answers JSON or CSV: shared caches must key on Accept.
      onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
        reply.header('vary', 'Accept');
      },
      schema: {
        tags: ['agent jobs'],
        security: [{ bearerAuth: [] }],
        summary: 'Export what agent jobs cost',
        description:
          'Model calls of the project’s agent jobs in a date range, summed per UTC day (groupBy=day, the default), per model or per job: calls, tokens (cache reads and writes apart) and US dollars at the prices in force when each call was made, with the calls that had no price counted apart. dateFrom is inclusive and dateTo exclusive, widened to whole UTC hours; an omitted bound is unbounded. budget gives the month’s spend and the project’s budget. With "Accept: text/csv" the rows come as CSV (RFC 4180, header row). A read or admin key is needed.',
        params: ProjectParamsSchema,
        querystring: UsageQuerySchema,
        response: {
          200: {
            description: 'The usage report.',
            content: {
              'application/json': { schema: Type.Unsafe({ $ref: 'UsageReport#' }) },
              'text/csv': { schema: Type.String({ description: 'The rows as CSV, header row first.' }) },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request, reply): Promise<UsageReport | string> => {
      const report = await exportUsage(db, request.params.projectId, request.query);
      if (exportFormat(request.headers.accept) === 'json') return report;
      reply
        .type(CSV_TYPE)
        .header('content-disposition', `attachment; filename="usage-${report.groupBy}.csv"`);
      return toCsv(usageCsvColumns(report.groupBy), report.rows.map(usageCsvRow));
    },
  );
}

// The /v1 analytics routes. The contract fixes the page-view export (GET .../views).
import { Type } from 'typebox';
import type { App, AppContext } from '../../http/context.ts';
import { errorResponses } from '../../http/openapi.ts';
import { MAX_VIEWS_LIMIT, type PageViewReport, PageViewReportSchema, ViewsQuerySchema } from './schemas.ts';
import { exportPageViews } from './views.ts';

const ProjectParams = Type.Object({
  projectId: Type.String({ description: 'The project identifier (prj_...).' }),
});

const security = [{ bearerAuth: [] }];
const tags = ['analytics'];

export function registerAnalyticsRoutes(app: App, context: AppContext): void {
  const { db } = context;
  app.addSchema(PageViewReportSchema);

  app.get(
    '/v1/analytics/:projectId/views',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Export page views, human and AI',
        description: `Site-wide totals and per-page counts over a date range, each split into human readers and AI agents (non-AI bots are in neither). dateFrom is inclusive and dateTo exclusive; an omitted bound is unbounded. Counts are kept per UTC hour: a bound inside an hour widens the range to that whole hour, and range in the answer says which hours were counted. views are ordered by total descending, then path ascending; page with limit (1 to ${MAX_VIEWS_LIMIT}) and offset while hasMore is true. A read or admin key is needed.`,
        params: ProjectParams,
        querystring: ViewsQuerySchema,
        response: {
          200: Type.Unsafe<PageViewReport>({ $ref: 'PageViewReport#', description: 'The page view report.' }),
          ...errorResponses(),
        },
      },
    },
    async (request) => exportPageViews(db, request.params.projectId, request.query),
  );
}

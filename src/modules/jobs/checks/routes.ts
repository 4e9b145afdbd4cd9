// GET /v2/agent/{projectId}/job/{id}/checks: the job's last docs check as JSON.
import { JobChecksSchema, JobParamsSchema } from '../../../contract/index.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { getJobChecks } from './service.ts';

export function registerJobChecksRoutes(app: App, context: AppContext): void {
  const { db } = context;
  app.get(
    '/v2/agent/:projectId/job/:id/checks',
    {
      config: { access: 'read' },
      schema: {
        tags: ['agent jobs'],
        security: [{ bearerAuth: [] }],
        summary: "Get a job's docs checks",
        description:
          'The last docs check of the job over its whole change: the framework, whether it passed, and the problems the job introduced (file, line, message, fix hint), apart from those already at its base. 404 job_checks_not_found while there is none (not checked yet, checks off, failed before checking).',
        params: JobParamsSchema,
        response: { 200: JobChecksSchema, ...errorResponses() },
      },
    },
    async (request) => getJobChecks(db, request.params.projectId, request.params.id),
  );
}

// GET /v2/agent/{projectId}/job/{id}/ci: the CI watch of the job's pull request as JSON.
import { JobCiSchema, JobParamsSchema } from '../../../contract/index.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { getJobCi } from './service.ts';

export function registerJobCiRoutes(app: App, context: AppContext): void {
  const { db } = context;
  app.get(
    '/v2/agent/:projectId/job/:id/ci',
    {
      config: { access: 'read' },
      schema: {
        tags: ['agent jobs'],
        security: [{ bearerAuth: [] }],
        summary: "Get the CI of a job's pull request",
        description:
          'The watch of the checks the code host reports for the commit the job pushed last (project setting ci: watch or fix): its state (watching, passed, failed, timed_out, stopped), the checks the last poll saw, the follow-ups sent for failures, and why it ended. 404 job_ci_not_found when the job has none (ci off, or no pull request yet). docs/ci-follow-up.md.',
        params: JobParamsSchema,
        response: { 200: JobCiSchema, ...errorResponses() },
      },
    },
    async (request) => getJobCi(db, request.params.projectId, request.params.id),
  );
}

// GET /v2/agent/{projectId}/job/{id}/diff: the job's unified diff as text/x-diff, or as JSON.
import { Type } from 'typebox';
import { JobDiffQuerySchema, JobDiffSchema, JobParamsSchema } from '../../../contract/index.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { getJobDiff } from './service.ts';

export function registerJobDiffRoutes(app: App, context: AppContext): void {
  const { db } = context;
  app.get(
    '/v2/agent/:projectId/job/:id/diff',
    {
      config: { access: 'read' },
      schema: {
        tags: ['agent jobs'],
        security: [{ bearerAuth: [] }],
        summary: "Get a job's diff",
        description:
          'The unified diff of the job’s changes, saved when the agent commits (a follow-up replaces it). text/x-diff by default; JSON {diff, truncated, totalBytes, updatedAt} with Accept: application/json or ?format=json. Headers docwright-diff-truncated and docwright-diff-total-bytes describe the text answer. 404 job_diff_not_found while the job has none (still running, no file changed, failed before committing).',
        params: JobParamsSchema,
        querystring: JobDiffQuerySchema,
        response: {
          200: {
            description: 'The diff.',
            content: {
              'text/x-diff': { schema: Type.String() },
              'application/json': { schema: JobDiffSchema },
            },
          },
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const diff = await getJobDiff(db, request.params.projectId, request.params.id);
      const format = request.query.format;
      const json =
        format === 'json' ||
        (format === undefined && (request.headers.accept ?? '').toLowerCase().includes('application/json'));
      if (json) return reply.type('application/json; charset=utf-8').send(diff);
      return reply
        .type('text/x-diff; charset=utf-8')
        .header('docwright-diff-truncated', String(diff.truncated))
        .header('docwright-diff-total-bytes', String(diff.totalBytes))
        .send(diff.diff);
    },
  );
}

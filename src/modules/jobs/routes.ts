// The /v2 agent-job routes. The contract fixes create (POST .../job); the get-job route it refers
// to is GET .../job/{id}; list, follow-up, cancel and archive are additive.
import {
  JobCreateHeadersSchema,
  JobListQuerySchema,
  JobListSchema,
  JobParamsSchema,
  JobRef,
  JobSchema,
  MAX_PROMPT_LENGTH,
  ProjectParamsSchema,
  PromptBodySchema,
} from '../../contract/index.ts';
import type { App, AppContext } from '../../http/context.ts';
import { checkIdempotencyKey } from '../../http/idempotency.ts';
import { errorResponses } from '../../http/openapi.ts';
import { archiveJob, cancelJob, createJob, followUpJob, getJob, listJobs } from './service.ts';

const security = [{ bearerAuth: [] }];
const tags = ['agent jobs'];

export function registerJobRoutes(app: App, context: AppContext): void {
  const { db, config } = context;
  app.addSchema(JobSchema);

  app.post(
    '/v2/agent/:projectId/job',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Create an agent job',
        description: `Starts an agent job and answers at once with status active. Poll GET .../job/{id} until the status is completed, archived or failed. The prompt is 1 to ${MAX_PROMPT_LENGTH} characters. Rate limited per project (job creations plus follow-ups per sliding hour); beyond it 429 with Retry-After.`,
        params: ProjectParamsSchema,
        headers: JobCreateHeadersSchema,
        body: PromptBodySchema,
        response: { 201: JobRef, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const idempotencyKey = checkIdempotencyKey(request.headers['idempotency-key']);
      const { job, replayed } = await createJob(db, config, {
        projectId: request.params.projectId,
        prompt: request.body.prompt,
        idempotencyKey,
      });
      if (!replayed && job.status === 'active') context.onJobQueued?.(job.id);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(job);
    },
  );

  app.get(
    '/v2/agent/:projectId/job/:id',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'Get an agent job',
        description:
          'The get-job operation to poll: status, prLink once the pull request exists, error when failed.',
        params: JobParamsSchema,
        response: { 200: JobRef, ...errorResponses() },
      },
    },
    async (request) => getJob(db, request.params.projectId, request.params.id),
  );

  app.get(
    '/v2/agent/:projectId/jobs',
    {
      config: { access: 'read' },
      schema: {
        tags,
        security,
        summary: 'List agent jobs',
        description:
          'Newest first. Pass nextCursor back as cursor for the next page; it stays valid as jobs are added.',
        params: ProjectParamsSchema,
        querystring: JobListQuerySchema,
        response: { 200: JobListSchema, ...errorResponses() },
      },
    },
    async (request) =>
      listJobs(db, {
        projectId: request.params.projectId,
        status: request.query.status ?? null,
        limit: request.query.limit,
        cursor: request.query.cursor ?? null,
      }),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/message',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Send a follow-up to a job',
        description:
          'Continues a completed or failed job on the same branch and pull request: the job becomes active again. 409 while it is still active or once archived.',
        params: JobParamsSchema,
        body: PromptBodySchema,
        // 200, not 202: the hosted original's published API description declares 200 with the
        // job, and clients generated from it treat any other success status as undeclared.
        response: { 200: JobRef, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const job = await followUpJob(db, config, {
        projectId: request.params.projectId,
        id: request.params.id,
        prompt: request.body.prompt,
      });
      if (job.status === 'active') context.onJobQueued?.(job.id);
      return reply.code(200).send(job);
    },
  );

  app.post(
    '/v2/agent/:projectId/job/:id/cancel',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Cancel an active job',
        description:
          'The job becomes failed with error.code "cancelled"; a running agent stops within seconds. 409 when the job is not active.',
        params: JobParamsSchema,
        response: { 200: JobRef, ...errorResponses() },
      },
    },
    async (request) => cancelJob(db, request.params.projectId, request.params.id),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/archive',
    {
      config: { access: 'write' },
      schema: {
        tags,
        security,
        summary: 'Archive a finished job',
        description:
          'Status becomes archived and archivedAt is set. 409 while the job is active, or when already archived.',
        params: JobParamsSchema,
        response: { 200: JobRef, ...errorResponses() },
      },
    },
    async (request) => archiveJob(db, request.params.projectId, request.params.id),
  );
}

// /app/projects/:projectId/jobs: list (filter, paging), create from a prompt; a job's page with
// cancel, archive and follow-up.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JOB_STATUSES, type JobStatus } from '../../../contract/index.ts';
import { AppError } from '../../../errors/app-error.ts';
import { archiveJob, cancelJob, createJob, followUpJob, getJob, listJobs } from '../../jobs/index.ts';
import { getProject } from '../../projects/index.ts';
import { type DashboardContext, fieldErrorsOf, formOf, frameOf } from '../context.ts';
import { jobDiff, jobEvents, jobPrompts } from '../job-data.ts';
import { redirectAfterPost, sendPage } from '../respond.ts';
import { type JobPage, jobPage } from '../views/job-view.ts';
import { type JobsPage, jobsPage } from '../views/jobs-view.ts';

type ProjectParams = { Params: { projectId: string } };
type JobParams = { Params: { projectId: string; jobId: string } };
type ListQuery = { Querystring: { status?: string; cursor?: string } };

export const JOBS_PAGE_SIZE = 25;

function statusFilter(raw: unknown): JobStatus | null {
  return typeof raw === 'string' && (JOB_STATUSES as readonly string[]).includes(raw)
    ? (raw as JobStatus)
    : null;
}

export function registerJobRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;

  const renderList = async (
    request: FastifyRequest<ProjectParams & ListQuery>,
    reply: FastifyReply,
    form?: JobsPage['form'],
    status = 200,
  ) => {
    const project = await getProject(db, request.params.projectId);
    const filter = statusFilter(request.query.status);
    const cursor =
      typeof request.query.cursor === 'string' && request.query.cursor !== '' ? request.query.cursor : null;
    const page = await listJobs(db, { projectId: project.id, status: filter, limit: JOBS_PAGE_SIZE, cursor });
    const view = jobsPage(frameOf(request, { title: `Jobs · ${project.name}` }), project, {
      jobs: page.jobs,
      status: filter,
      nextCursor: page.nextCursor,
      paged: cursor !== null,
      ...(form ? { form } : {}),
    });
    return sendPage(reply, view, status);
  };

  app.get<ProjectParams & ListQuery>('/projects/:projectId/jobs', (request, reply) =>
    renderList(request, reply),
  );

  app.post<ProjectParams & ListQuery>('/projects/:projectId/jobs', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const form = formOf(request);
    try {
      const { job, replayed } = await createJob(db, ctx.jobs, {
        projectId: project.id,
        prompt: form.prompt ?? '',
        // A hidden per-form key: a double click or a resubmitted form does not start a second job.
        idempotencyKey: /^[0-9a-f-]{36}$/.test(form.idempotencyKey ?? '') ? form.idempotencyKey! : null,
      });
      if (!replayed && job.status === 'active') ctx.onJobQueued?.(job.id);
      // A job that cannot run (no model, say) fails at once: its page says why, the list would not.
      if (job.status !== 'active') {
        return redirectAfterPost(reply, `/app/projects/${project.id}/jobs/${job.id}?notice=job-not-started`);
      }
      return redirectAfterPost(reply, `/app/projects/${project.id}/jobs?notice=job-created`);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      reply.headers(error.headers);
      request.query = {};
      return renderList(
        request,
        reply,
        { prompt: form.prompt ?? '', error: error.message, errors: fieldErrorsOf(error) },
        error.status,
      );
    }
  });

  const renderJob = async (
    request: FastifyRequest<JobParams>,
    reply: FastifyReply,
    extra: Partial<JobPage> = {},
    status = 200,
  ) => {
    const project = await getProject(db, request.params.projectId);
    const job = await getJob(db, project.id, request.params.jobId);
    const diff = await jobDiff(db, project.id, job.id);
    const view = jobPage(frameOf(request, { title: 'Job' }), project, {
      job,
      prompts: await jobPrompts(db, job.id, job.prompt),
      events: await jobEvents(db, job.id),
      diff: diff.diff,
      diffWhy: diff.why,
      ...extra,
    });
    return sendPage(reply, view, status);
  };

  app.get<JobParams>('/projects/:projectId/jobs/:jobId', (request, reply) => renderJob(request, reply));

  /** Runs a job action; a refusal (e.g. the job ended meanwhile) is shown on the job's page. */
  const action = (
    path: string,
    run: (request: FastifyRequest<JobParams>) => Promise<unknown>,
    notice: string,
  ) =>
    app.post<JobParams>(`/projects/:projectId/jobs/:jobId/${path}`, async (request, reply) => {
      await getProject(db, request.params.projectId);
      try {
        await run(request);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500 || error.code === 'job_not_found')
          throw error;
        reply.headers(error.headers);
        const form =
          path === 'message'
            ? { prompt: formOf(request).prompt ?? '', error: error.message, errors: fieldErrorsOf(error) }
            : undefined;
        return renderJob(request, reply, form ? { form } : { actionError: error.message }, error.status);
      }
      return redirectAfterPost(
        reply,
        `/app/projects/${request.params.projectId}/jobs/${request.params.jobId}?notice=${notice}`,
      );
    });

  action('cancel', (r) => cancelJob(db, r.params.projectId, r.params.jobId), 'job-cancelled');
  action('archive', (r) => archiveJob(db, r.params.projectId, r.params.jobId), 'job-archived');
  action(
    'message',
    async (r) => {
      const job = await followUpJob(db, ctx.jobs, {
        projectId: r.params.projectId,
        id: r.params.jobId,
        prompt: formOf(r).prompt ?? '',
      });
      if (job.status === 'active') ctx.onJobQueued?.(job.id);
    },
    'follow-up-sent',
  );
}

// /api/dashboard: what the jobs pages' scripts read. Two server-sent-event streams (the jobs
// list, one job) fed by the jobs module's event hub, and the first page of jobs as rendered rows
// (the list looks for jobs created elsewhere with it). Session cookie only; never an API key.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JOB_STATUSES, type JobStatus } from '../../../contract/index.ts';
import { getJob, jobEventHub, jobEventsAreOver, listJobs } from '../../jobs/index.ts';
import { getProject } from '../../projects/index.ts';
import type { DashboardContext } from '../context.ts';
import { jobDiff, jobEvents } from '../job-data.ts';
import { type LiveFrame, LiveJobsStream } from '../live-stream.ts';
import { diffBlock, eventItem, jobRow, jobSummary } from '../views/job-parts.ts';
import { jobActions } from '../views/job-view.ts';
import { JOBS_PAGE_SIZE } from './job-routes.ts';

/** Jobs one list stream watches at most (the active ones of a page). */
const MAX_WATCHED = JOBS_PAGE_SIZE;
const KEEP_ALIVE_MS = 15_000;

type ProjectParams = { Params: { projectId: string } };
type JobParams = { Params: { projectId: string; jobId: string } };

export function registerLiveRoutes(
  app: FastifyInstance,
  ctx: DashboardContext,
  options: { keepAliveMs?: number } = {},
): void {
  const { db } = ctx;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const open = new Set<LiveJobsStream>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.close();
  });

  const stream = async (
    request: FastifyRequest,
    reply: FastifyReply,
    jobIds: string[],
    render: (jobId: string) => Promise<LiveFrame | null>,
  ) => {
    reply.hijack();
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    reply.raw.write('retry: 2000\n\n');
    const live = new LiveJobsStream({
      hub: jobEventHub(db),
      jobIds,
      out: reply.raw,
      render,
      logger: request.log,
      keepAliveMs,
    });
    open.add(live);
    void live.done.finally(() => open.delete(live));
    try {
      await live.start();
    } catch (error) {
      request.log.error({ err: error }, 'could not start the dashboard live stream');
      live.close();
    }
  };

  app.get<ProjectParams & { Querystring: { ids?: string } }>(
    '/projects/:projectId/jobs/live',
    async (request, reply) => {
      const project = await getProject(db, request.params.projectId);
      const ids = [...new Set((request.query.ids ?? '').split(','))]
        .filter((id) => /^job_[0-9A-Za-z]{16}$/.test(id))
        .slice(0, MAX_WATCHED);
      const lastSent = new Map<string, string>();
      await stream(request, reply, ids, async (jobId) => {
        const job = await getJob(db, project.id, jobId).catch(() => null);
        if (job === null) return { data: { id: jobId, gone: true }, over: true };
        const state = `${job.status}|${job.prLink}|${job.error?.code}`;
        const over = job.status !== 'active';
        if (lastSent.get(jobId) === state) return null;
        lastSent.set(jobId, state);
        return { data: { id: job.id, status: job.status, html: jobRow(project.id, job).text }, over };
      });
    },
  );

  app.get<JobParams & { Querystring: { after?: string } }>(
    '/projects/:projectId/jobs/:jobId/live',
    async (request, reply) => {
      const project = await getProject(db, request.params.projectId);
      const job = await getJob(db, project.id, request.params.jobId);
      const resumeFrom = request.headers['last-event-id'] ?? request.query.after ?? '0';
      let cursor = /^\d{1,15}$/.test(String(resumeFrom)) ? Number(resumeFrom) : 0;
      const csrfToken = request.dashboardState?.csrfToken ?? '';
      let lastStatus = '';
      await stream(request, reply, [job.id], async (jobId) => {
        const events = await jobEvents(db, jobId, cursor);
        const current = await getJob(db, project.id, jobId);
        cursor = events.at(-1)?.id ?? cursor;
        const over = await jobEventsAreOver(db, jobId, cursor);
        const status = `${current.status}|${current.updatedAt}`;
        if (events.length === 0 && status === lastStatus && !over) return null;
        lastStatus = status;
        const data: Record<string, unknown> = {
          status: current.status,
          summaryHtml: jobSummary(current).text,
          actionsHtml: jobActions({ csrfToken }, project.id, current).text,
          eventsHtml: events.map((e) => eventItem(e).text),
        };
        if (current.status !== 'active') {
          const diff = await jobDiff(db, project.id, jobId);
          data.diffHtml = diffBlock(diff.diff, diff.why).text;
        }
        return { id: cursor, data, over };
      });
    },
  );

  app.get<ProjectParams & { Querystring: { status?: string } }>(
    '/projects/:projectId/jobs',
    async (request) => {
      const project = await getProject(db, request.params.projectId);
      const raw = request.query.status;
      const status =
        typeof raw === 'string' && (JOB_STATUSES as readonly string[]).includes(raw)
          ? (raw as JobStatus)
          : null;
      const page = await listJobs(db, { projectId: project.id, status, limit: JOBS_PAGE_SIZE, cursor: null });
      return {
        jobs: page.jobs.map((j) => ({ id: j.id, status: j.status, html: jobRow(project.id, j).text })),
      };
    },
  );
}

// GET /v2/agent/{projectId}/job/{id}/events: the job's events as server-sent events (history,
// then live, until the job is over), resumable with Last-Event-ID; or as a JSON array with
// ?format=json or Accept: application/json.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  JobEventSchema,
  JobEventsHeadersSchema,
  JobEventsQuerySchema,
  JobParamsSchema,
  MAX_EVENT_ID,
} from '../../../contract/index.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { getJob } from '../service.ts';
import { jobEventHub } from './event-hub.ts';
import { toJobEventView } from './event-view.ts';
import { JobEventStream, jobStreamIsOver } from './job-event-stream.ts';
import { selectJobEventsAfter, selectJobStreamState } from './queries.ts';
import { retryFrame } from './sse-format.ts';

/** A comment this often keeps proxies (nginx: 60 s by default) from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;
/** Clients that lose the connection reconnect after this long (sent as the SSE retry field). */
const RECONNECT_MS = 2_000;

export function registerJobEventRoutes(
  app: App,
  context: AppContext,
  options: { keepAliveMs?: number } = {},
): void {
  const { db } = context;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const open = new Set<JobEventStream>();
  app.addSchema(JobEventSchema);
  // Streams never end on their own while a job runs: at shutdown they are ended, so the server
  // does not wait for them (clients reconnect to another process with Last-Event-ID).
  app.addHook('preClose', async () => {
    for (const stream of open) stream.close();
  });

  app.get(
    '/v2/agent/:projectId/job/:id/events',
    {
      config: { access: 'read' },
      schema: {
        tags: ['agent jobs'],
        security: [{ bearerAuth: [] }],
        summary: "Stream a job's events",
        description:
          'Server-sent events: the stored events (after Last-Event-ID or ?after= when given), then new events as they happen, until the job is over (after its completed, failed or archived event the stream closes). Each event has id (resume with Last-Event-ID), event (its type) and data (the event as JSON). A comment every 15 s keeps the connection open. 204 when the job is over and nothing is left to send. With ?format=json or Accept: application/json: the stored events as a JSON array (at most limit; page with after).',
        params: JobParamsSchema,
        querystring: JobEventsQuerySchema,
        headers: JobEventsHeadersSchema,
        response: {
          200: {
            description: 'The events, as an event stream or as JSON.',
            content: {
              'text/event-stream': { schema: Type.String() },
              'application/json': { schema: Type.Array(Type.Unsafe({ $ref: 'JobEvent#' })) },
            },
          },
          204: { description: 'The job is over and there is no event after the given id.', type: 'null' },
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const { projectId, id } = request.params;
      const after = resumePoint(request.headers['last-event-id'], request.query.after);
      await getJob(db, projectId, id); // 404 for a job of another project or none
      if (wantsJson(request.query.format, request.headers.accept)) {
        const rows = await selectJobEventsAfter(db, id, after, request.query.limit);
        return reply.type('application/json; charset=utf-8').send(rows.map(toJobEventView));
      }
      const [next] = await selectJobEventsAfter(db, id, after, 1);
      if (next === undefined && jobStreamIsOver(await selectJobStreamState(db, id), after)) {
        // Tells EventSource not to reconnect: the job is over and the client has everything.
        return reply.code(204).send(null);
      }
      await stream(request, reply, { after, keepAliveMs, open, jobId: id });
      return reply;
    },
  );

  async function stream(
    request: FastifyRequest,
    reply: FastifyReply,
    s: { after: number; keepAliveMs: number; open: Set<JobEventStream>; jobId: string },
  ): Promise<void> {
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no', // nginx would otherwise buffer the stream
    });
    out.write(retryFrame(RECONNECT_MS));
    const events = new JobEventStream({
      db,
      hub: jobEventHub(db),
      logger: request.log,
      jobId: s.jobId,
      after: s.after,
      out,
      keepAliveMs: s.keepAliveMs,
    });
    s.open.add(events);
    void events.done.finally(() => s.open.delete(events));
    try {
      await events.start();
    } catch (error) {
      request.log.error({ err: error }, 'could not start the job event stream');
      events.close();
    }
  }
}

/** Last-Event-ID (what a reconnecting EventSource sends) wins over ?after= (the first URL's). */
function resumePoint(header: string | string[] | undefined, after: number | undefined): number {
  if (header === undefined || header === '') return after ?? 0;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!/^\d{1,16}$/.test(value.trim()) || Number(value) > MAX_EVENT_ID) {
    throw httpErrors.invalid_header(
      'Last-Event-ID must be the id of an event from this stream (a non-negative integer).',
      { details: [{ location: 'header', name: 'Last-Event-ID', message: 'not an event id' }] },
    );
  }
  return Number(value);
}

function wantsJson(format: 'sse' | 'json' | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'json';
  if (accept === undefined) return false;
  const lower = accept.toLowerCase();
  return lower.includes('application/json') && !lower.includes('text/event-stream');
}

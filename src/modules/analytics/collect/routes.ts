// The browser script and its endpoint, for docs sites on static hosts:
//   GET  /script.js                            the script (no key; cached by browsers for a day)
//   POST /v1/analytics/{projectId}/collect     one page view (no key; only from allowedOrigins)
//   OPTIONS the same                           the CORS preflight
// The user agent and address are the request's own; the body says only which page was seen. The
// view then goes through the same classification and group commit as the ingest API.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CollectBodySchema, CollectResultSchema, ProjectParamsSchema } from '../../../contract/index.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { jsonValueError, jsonValueProblem } from '../../../http/request-text.ts';
import { hourOf } from '../../../util/time.ts';
import { findProject } from '../../projects/index.ts';
import { type ClassificationContext, createClassificationContext } from '../classification/context.ts';
import { classifyRecord } from '../classification/pipeline.ts';
import { type GroupCommitOptions, GroupCommitWriter } from '../ingest/group-commit.ts';
import type { RecordOutcomes } from '../ingest/ingest-batch.ts';
import { ViewSums } from '../view-sums.ts';
import { collectErrors } from './errors.ts';
import { matchAllowedOrigin } from './origins.ts';
import { AddressRateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { scriptAsset } from './script-asset.ts';

export interface CollectRouteOptions {
  classification?: ClassificationContext;
  writer?: GroupCommitWriter;
  writerOptions?: Partial<GroupCommitOptions>;
  rateLimit?: Partial<RateLimitOptions>;
  now?: () => number;
  /** Told what became of every view posted (the metrics). */
  onRecords?: (outcomes: RecordOutcomes) => void;
}

export const MAX_COLLECT_BODY_BYTES = 8 * 1024;
const COLLECT_URL = '/v1/analytics/:projectId/collect';

const SCRIPT_CACHE_CONTROL = 'public, max-age=86400, stale-while-revalidate=604800';
const PREFLIGHT_MAX_AGE = '86400';

export function registerCollectRoutes(
  app: App,
  context: AppContext,
  options: CollectRouteOptions = {},
): void {
  const { db } = context;
  const classification = options.classification ?? createClassificationContext();
  const limiter = new AddressRateLimiter(options.rateLimit);
  const now = options.now ?? Date.now;
  const writer = options.writer ?? new GroupCommitWriter(db, options.writerOptions, app.log);
  app.addHook('onClose', async () => writer.close());

  app.get(
    '/script.js',
    {
      schema: {
        tags: ['analytics'],
        summary: 'The browser page-view script',
        description:
          'A small script for static docs sites: <script defer src=".../script.js" data-project="prj_..."></script>. It posts page views to /v1/analytics/{projectId}/collect. See docs/browser-script.md.',
      },
    },
    async (request, reply) => {
      const asset = scriptAsset();
      reply
        .header('cache-control', SCRIPT_CACHE_CONTROL)
        .header('etag', asset.etag)
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'cross-origin');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(asset.body);
    },
  );

  /** Refuses requests from origins the project does not allow; allowed ones get CORS headers. */
  async function checkOrigin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { projectId } = request.params as { projectId: string };
    const origin = request.headers.origin;
    if (origin === undefined) {
      throw collectErrors.origin_not_allowed(
        'No Origin header: page views are accepted from the browser script on an allowed site only. Servers send views to /v1/analytics/{projectId}/events with an ingest key.',
      );
    }
    const project = await findProject(db, projectId);
    const allowed = project === null ? null : matchAllowedOrigin(origin, project.settings.allowedOrigins);
    if (allowed === null) {
      // The same words whether or not the project exists: no key, so nothing may be revealed.
      throw collectErrors.origin_not_allowed(
        `The origin ${JSON.stringify(origin.slice(0, 200))} may not send page views to project "${projectId}": ` +
          "add it to the project's allowedOrigins (docwright projects update ID --setting 'allowedOrigins=[\"https://docs.example.com\"]').",
      );
    }
    reply.header('access-control-allow-origin', allowed).header('vary', 'Origin');
  }

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // sendBeacon and the script's fetch send text/plain (no preflight); JSON clients send JSON.
    // Both are read by one parser here, so both get the same answers.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      ['text/plain', 'application/json'],
      { parseAs: 'string', bodyLimit: MAX_COLLECT_BODY_BYTES },
      (_request, body, done) => {
        const text = (body as string).trim();
        if (text === '') return done(httpErrors.invalid_json('The body is empty; send {"path": "/page"}.'));
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return done(httpErrors.invalid_json('The body is not valid JSON; send {"path": "/page"}.'));
        }
        const problem = jsonValueProblem(value, text);
        done(problem === null ? null : jsonValueError(problem), value);
      },
    );

    scope.route({
      method: 'OPTIONS',
      url: COLLECT_URL,
      config: { access: 'public' },
      schema: { hide: true, params: ProjectParamsSchema },
      onRequest: checkOrigin,
      handler: async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', 'POST')
          .header('access-control-allow-headers', 'Content-Type')
          .header('access-control-max-age', PREFLIGHT_MAX_AGE)
          .send(),
    });

    scope.post(
      COLLECT_URL,
      {
        config: { access: 'public' },
        bodyLimit: MAX_COLLECT_BODY_BYTES,
        onRequest: [
          async (request) => {
            const wait = limiter.take(request.ip);
            if (wait > 0) {
              throw httpErrors.rate_limited(`Too many page views from this address; retry in ${wait} s.`, {
                headers: { 'retry-after': String(wait) },
              });
            }
          },
          checkOrigin,
        ],
        schema: {
          tags: ['analytics'],
          security: [],
          summary: 'Record a page view from the browser script',
          description:
            "Used by /script.js; needs no key. Accepted only from the project's allowedOrigins (Origin header; CORS preflight answered). The user agent and address are taken from the request itself. Body: {path} or {url}, and optionally referrer, as JSON (text/plain or application/json). Answered 202 once the view is committed.",
          params: ProjectParamsSchema,
          body: CollectBodySchema,
          response: { 202: CollectResultSchema, ...errorResponses(503) },
        },
      },
      async (request, reply) => {
        const { path, url } = request.body;
        if ((path ?? '').trim() === '' && (url ?? '').trim() === '') {
          throw httpErrors.invalid_body('Send the page as "path" (or "url").', {
            details: [{ location: 'body', name: 'path', message: 'path or url is required' }],
          });
        }
        if ((path ?? '').includes('\0') || (url ?? '').includes('\0')) {
          throw httpErrors.invalid_body('The page path holds the NUL character.', {
            details: [{ location: 'body', name: 'path', message: 'must not contain NUL' }],
          });
        }
        const at = now();
        const userAgent = request.headers['user-agent'];
        const outcome = await classifyRecord(
          {
            ...(path !== undefined ? { path } : {}),
            ...(url !== undefined ? { url } : {}),
            method: 'GET',
            timestamp: new Date(at),
            ip: request.ip,
            ...(userAgent !== undefined ? { userAgent } : {}),
          },
          classification,
        );
        if ('drop' in outcome) {
          options.onRecords?.({ accepted: 0, dropped: { [outcome.drop]: 1 }, rejected: 0 });
          return reply.code(202).send({ counted: false, dropped: outcome.drop });
        }
        await writer.submit(
          ViewSums.ofRows([
            {
              projectId: request.params.projectId,
              hour: new Date(hourOf(at)),
              path: outcome.path,
              trafficClass: outcome.class,
              agent: outcome.agent,
              verification: outcome.verification,
              views: 1,
            },
          ]),
        );
        options.onRecords?.({ accepted: 1, dropped: {}, rejected: 0 });
        return reply.code(202).send({ counted: true });
      },
    );
  });
}

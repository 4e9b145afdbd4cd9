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
import { type ClassificationContext, createClassificationContext } from '../classification/context.ts';
import { type GroupCommitOptions, GroupCommitWriter } from '../ingest/group-commit.ts';
import type { RecordOutcomes } from '../ingest/ingest-batch.ts';
import { VisitorSalts } from '../store/index.ts';
import { collectErrors } from './errors.ts';
import { AddressRateLimiter, type RateLimitOptions } from './rate-limit.ts';
import { scriptAsset } from './script-asset.ts';
import { type Admission, admitView, type CollectDependencies, collectView, decideOrigin } from './service.ts';

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
  const writer = options.writer ?? new GroupCommitWriter(db, options.writerOptions, app.log);
  app.addHook('onClose', async () => writer.close());
  const deps: CollectDependencies = {
    db,
    classification: options.classification ?? createClassificationContext(),
    limiter: new AddressRateLimiter(options.rateLimit),
    writer,
    now: options.now ?? Date.now,
    visitorSalts: new VisitorSalts(db),
    ...(options.onRecords ? { onRecords: options.onRecords } : {}),
  };

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

  /** Answers a refused sender with its error; an admitted one gets its CORS headers. */
  function answerAdmission(admission: Admission, projectId: string, reply: FastifyReply): void {
    if ('retryAfterSeconds' in admission) {
      const wait = admission.retryAfterSeconds;
      throw httpErrors.rate_limited(`Too many page views from this address; retry in ${wait} s.`, {
        headers: { 'retry-after': String(wait) },
      });
    }
    if ('allowed' in admission) {
      reply.header('access-control-allow-origin', admission.allowed).header('vary', 'Origin');
      return;
    }
    if (admission.refused === 'no_origin') {
      throw collectErrors.origin_not_allowed(
        'No Origin header: page views are accepted from the browser script on an allowed site only. Servers send views to /v1/analytics/{projectId}/events with an ingest key.',
      );
    }
    throw collectErrors.origin_not_allowed(
      `The origin ${JSON.stringify(admission.origin.slice(0, 200))} may not send page views to project "${projectId}": ` +
        "add it to the project's allowedOrigins (docwright projects update ID --setting 'allowedOrigins=[\"https://docs.example.com\"]').",
    );
  }

  /** The preflight's hook: the origin alone decides. */
  async function checkOrigin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { projectId } = request.params as { projectId: string };
    answerAdmission(await decideOrigin(db, projectId, request.headers.origin), projectId, reply);
  }

  /** The view's hook: the address's rate limit, then the origin. */
  async function admit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { projectId } = request.params as { projectId: string };
    const sender = { projectId, address: request.ip, origin: request.headers.origin };
    answerAdmission(await admitView(deps, sender), projectId, reply);
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
        onRequest: admit,
        schema: {
          tags: ['analytics'],
          security: [],
          summary: 'Record a page view from the browser script',
          description:
            "Used by /script.js; needs no key. Accepted only from the project's allowedOrigins (Origin header; CORS preflight answered). The user agent and address are taken from the request itself. Body: {path} or {url}, and optionally referrer and utmSource (only the AI assistant they name is kept), as JSON (text/plain or application/json). Answered 202 once the view is committed.",
          params: ProjectParamsSchema,
          body: CollectBodySchema,
          response: { 202: CollectResultSchema, ...errorResponses(503) },
        },
      },
      async (request, reply) => {
        const { path, url, referrer, utmSource } = request.body;
        const userAgent = request.headers['user-agent'];
        const view = {
          projectId: request.params.projectId,
          path,
          url,
          address: request.ip,
          userAgent,
          referrer,
          utmSource,
        };
        return reply.code(202).send(await collectView(deps, view));
      },
    );
  });
}

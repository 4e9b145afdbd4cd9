// What route handlers get from the server that builds them.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { ClassificationContext } from '../modules/analytics/index.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AppContext {
  db: Database;
  config: Pick<Config, 'jobRateLimitPerHour' | 'defaultModel' | 'publicUrl'>;
  /**
   * How page views are classified (the agent list with DOCWRIGHT_EXTRA_AGENT_LISTS); one per
   * server, shared by the ingest API and the browser script. Default: the curated list only.
   */
  classification?: ClassificationContext;
  /** Called after a job is created or re-activated, so a worker in this process starts at once. */
  onJobQueued?: (jobId: string) => void;
  /** The server key: opens the codeHostWebhookSecret that code hosts' webhooks are checked with. */
  secretKey?: Buffer;
}

/**
 * Who may call a route: declared on each /v1 and /v2 route as config.access. 'public' opts a
 * route out of keys deliberately (the browser script's endpoint, which checks origins instead).
 */
export type RouteAccess = 'read' | 'write' | 'ingest' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The authenticated key, set by the auth hook on /v1 and /v2 routes. */
    apiKey?: import('../modules/keys/index.ts').ApiKeyInfo;
  }
}

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
  /** Called after a job is created or re-activated, so a worker in this process starts at once. */
  onJobQueued?: (jobId: string) => void;
}

/** Who may call a route: declared on each /v1 and /v2 route as config.access. */
export type RouteAccess = 'read' | 'write' | 'ingest';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The authenticated key, set by the auth hook on /v1 and /v2 routes. */
    apiKey?: import('../modules/keys/service.ts').ApiKeyInfo;
  }
}

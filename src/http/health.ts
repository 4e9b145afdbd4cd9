// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers).
import { HealthStatusSchema } from '../contract/index.ts';
import type { Database } from '../db/database.ts';
import { httpErrors } from '../errors/request-errors.ts';
import type { App } from './context.ts';
import { errorResponses } from './openapi.ts';

const READY_TIMEOUT_MS = 2000;

export function registerHealthRoutes(app: App, db: Database): void {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'The process is up', response: { 200: HealthStatusSchema } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The database answers',
        response: { 200: HealthStatusSchema, ...errorResponses(503) },
      },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          db.query('SELECT 1'),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
          }),
        ]);
      } catch {
        throw httpErrors.database_unavailable('The database does not answer.');
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ready' };
    },
  );
}

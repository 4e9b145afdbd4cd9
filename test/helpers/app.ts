// Builds the real HTTP application on a test database, and seeds projects and keys through the
// modules' own functions.
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App, AppContext } from '../../src/http/context.ts';
import { createKey } from '../../src/modules/keys/service.ts';
import type { RepositoryAccess } from '../../src/modules/projects/repository-address.ts';
import type { Project } from '../../src/modules/projects/schemas.ts';
import { createProject } from '../../src/modules/projects/service.ts';
import { createLogger } from '../../src/util/logger.ts';

/** Tests reach local git servers and code-host fakes: DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true. */
export const TEST_REPOSITORIES: RepositoryAccess = { allowPrivateAddresses: true };

export async function createTestApp(
  db: Database,
  overrides: Partial<Omit<AppContext, 'db'>> = {},
): Promise<App> {
  return buildApp({
    db,
    logger: createLogger('silent'),
    config: {
      jobRateLimitPerHour: 100,
      defaultModel: 'openai:gpt-test',
      publicUrl: 'http://127.0.0.1:3000',
      ...overrides.config,
    },
    ...(overrides.onJobQueued ? { onJobQueued: overrides.onJobQueued } : {}),
    ...(overrides.secretKey ? { secretKey: overrides.secretKey } : {}),
  });
}

let counter = 0;
export async function seedProject(
  db: Database,
  fields: Partial<Parameters<typeof createProject>[1]> = {},
): Promise<{ project: Project; adminKey: string; readKey: string; ingestKey: string }> {
  counter++;
  const project = await createProject(
    db,
    {
      name: `Docs ${counter}`,
      repositoryUrl: `https://github.com/example/docs-${counter}`,
      ...fields,
    },
    TEST_REPOSITORIES,
  );
  const adminKey = (await createKey(db, { projectId: project.id, scope: 'admin' })).key;
  const readKey = (await createKey(db, { projectId: project.id, scope: 'read' })).key;
  const ingestKey = (await createKey(db, { projectId: project.id, scope: 'ingest' })).key;
  return { project, adminKey, readKey, ingestKey };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

// The first start of a server on an empty database creates a demo project and an admin key, so a
// newcomer can call the API at once. The key is returned to the caller to show once; only its hash
// is stored, so no later start can show it again.
import type { Database } from '../db/database.ts';
import { createKey } from '../modules/keys/index.ts';
import type { Project } from '../modules/projects/index.ts';
import { createProject, projectCount } from '../modules/projects/index.ts';

export const DEMO_PROJECT = { name: 'Demo docs', repositoryUrl: 'https://github.com/example/docs' };

// Two servers starting at once on one empty PostgreSQL database must not both create a demo
// project: the check and the inserts run under this transaction-scoped lock ("docwrf" in ASCII).
const FIRST_START_LOCK_ID = 0x646f63777266;

export interface FirstStart {
  project: Project;
  adminKey: string;
}

/** Creates the demo project and its admin key when no project exists; null otherwise. */
export async function firstStart(db: Database): Promise<FirstStart | null> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_START_LOCK_ID]);
    if ((await projectCount(tx)) > 0) return null;
    // The demo repository is a constant https URL on a public host: nothing to check, and no DNS
    // lookup inside this transaction (the policy still applies when a job runs).
    const project = await createProject(tx, DEMO_PROJECT, { allowPrivateAddresses: true });
    const key = await createKey(tx, { projectId: project.id, name: 'first-start admin key', scope: 'admin' });
    return { project, adminKey: key.key };
  });
}

import { createJob } from '../../src/modules/jobs/index.ts';
import { createTestApp, seedProject } from '../helpers/app.ts';
import { openTestDatabase } from '../helpers/databases.ts';

const db = await openTestDatabase('pglite');
const app = await createTestApp(db);
const { project, readKey } = await seedProject(db);
const { job } = await createJob(
  db,
  { jobRateLimitPerHour: 100, defaultModel: 'openai:x' },
  { projectId: project.id, prompt: 'x', idempotencyKey: null },
);
await app.listen({ port: 4555, host: '127.0.0.1' });
console.log(JSON.stringify({ key: readKey, project: project.id, job: job.id }));
setTimeout(async () => {
  await app.close();
  await db.close();
}, 20000);

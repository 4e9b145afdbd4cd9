import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { AppError } from '../../src/errors/app-error.ts';
import {
  deleteProjectSecret,
  listProjectSecrets,
  readProjectSecret,
  setProjectSecret,
} from '../../src/modules/projects/secrets.ts';
import { seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const serverKey = randomBytes(32);

await forEachBackend('project secrets', ({ db }) => {
  test('stored sealed, read back, listed by name only, deleted', async () => {
    const { project } = await seedProject(db());
    await setProjectSecret(db(), serverKey, project.id, 'codeHostToken', ' ghp_topsecret123 ');
    const raw = await db().query<{ sealed: string }>('SELECT sealed FROM project_secrets');
    assert.ok(
      raw.every((r) => !r.sealed.includes('ghp_topsecret123')),
      'not stored in clear',
    );
    assert.equal(await readProjectSecret(db(), serverKey, project.id, 'codeHostToken'), 'ghp_topsecret123');
    assert.equal(await readProjectSecret(db(), serverKey, project.id, 'modelApiKey'), null);
    const listed = await listProjectSecrets(db(), project.id);
    assert.deepEqual(
      listed.map((s) => s.name),
      ['codeHostToken'],
    );
    assert.ok(!JSON.stringify(listed).includes('ghp_'));
    await assert.rejects(
      readProjectSecret(db(), randomBytes(32), project.id, 'codeHostToken'),
      /another DOCWRIGHT_SECRET_KEY/,
    );
    assert.equal(await deleteProjectSecret(db(), project.id, 'codeHostToken'), true);
    assert.equal(await readProjectSecret(db(), serverKey, project.id, 'codeHostToken'), null);
  });

  test('a sealed value moved to another project does not open there', async () => {
    const a = await seedProject(db());
    const b = await seedProject(db());
    await setProjectSecret(db(), serverKey, a.project.id, 'modelApiKey', 'sk-a');
    await db().query(
      'INSERT INTO project_secrets (project_id, name, sealed) SELECT $2, name, sealed FROM project_secrets WHERE project_id = $1',
      [a.project.id, b.project.id],
    );
    await assert.rejects(readProjectSecret(db(), serverKey, b.project.id, 'modelApiKey'));
  });

  test('unknown names and empty values are refused', async () => {
    const { project } = await seedProject(db());
    await assert.rejects(setProjectSecret(db(), serverKey, project.id, 'password', 'x'), (e: AppError) =>
      /known secrets: codeHostToken/.test(e.message),
    );
    await assert.rejects(setProjectSecret(db(), serverKey, project.id, 'modelApiKey', '  '), /empty/);
  });
});

// Which code-host credentials a job gets: the project's token only for the code host it was
// stored for (a token stored before bindings existed counts as the project's current host), and
// nothing at all when the repository's address is refused at the time the job runs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { jobCodeHostCredentials } from '../../src/agent/job-credentials.ts';
import { WorkspaceFailure } from '../../src/agent/workspace/failures.ts';
import { CodeHostError } from '../../src/code-hosts/contract.ts';
import { setProjectSecret } from '../../src/modules/projects/secrets.ts';
import { createProject, getProject, updateProject } from '../../src/modules/projects/service.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const secretKey = randomBytes(32);
const config = (allowPrivateAddresses: boolean) => ({
  secretKey,
  defaultModel: null,
  modelCredentials: {
    openai: { apiKey: null, baseURL: null },
    anthropic: { apiKey: null, baseURL: null },
    'openai-compatible': { apiKey: null, baseURL: null },
  },
  codeHostTokens: { github: null, gitlab: null, gitea: null },
  repositories: { allowPrivateAddresses },
});

await forEachBackend('job code-host credentials', ({ db }) => {
  test('the token goes with the repository it was stored for, and nowhere else', async () => {
    const project = await createProject(
      db(),
      { name: 'docs', repositoryUrl: 'https://github.com/acme/docs' },
      TEST_REPOSITORIES,
    );
    await setProjectSecret(db(), secretKey, project.id, 'codeHostToken', 'ghp_stored_for_github');
    const same = await jobCodeHostCredentials(db(), config(true), project, 'https://github.com/acme/other');
    assert.deepEqual(same, { type: 'token', token: 'ghp_stored_for_github' });
    // A job created before the repository moved, or after: another origin gets nothing.
    await assert.rejects(
      jobCodeHostCredentials(db(), config(true), project, 'https://github.example.net/acme/docs'),
      (e: CodeHostError) =>
        e instanceof CodeHostError &&
        e.code === 'code_host_auth' &&
        /stored for github at https:\/\/github\.com/.test(e.message) &&
        !e.message.includes('ghp_'),
    );
    // Another API URL for the same repository is another destination too.
    const proxied = await updateProject(
      db(),
      project.id,
      { codeHostApiUrl: 'https://proxy.example.net/api' },
      TEST_REPOSITORIES,
    );
    await assert.rejects(
      jobCodeHostCredentials(db(), config(true), proxied, proxied.repositoryUrl),
      (e: CodeHostError) => e.code === 'code_host_auth',
    );
  });

  test('a token stored before bindings existed is bound to the host it leaves when the project moves', async () => {
    const project = await createProject(
      db(),
      { name: 'old', repositoryUrl: 'https://gitlab.com/acme/docs' },
      TEST_REPOSITORIES,
    );
    await setProjectSecret(db(), secretKey, project.id, 'codeHostToken', 'glpat_old_token');
    await db().query('UPDATE project_secrets SET bound_to = NULL WHERE project_id = $1', [project.id]);
    const token = await jobCodeHostCredentials(db(), config(true), project, project.repositoryUrl);
    assert.deepEqual(token, { type: 'token', token: 'glpat_old_token' });
    await updateProject(
      db(),
      project.id,
      { repositoryUrl: 'https://codeberg.org/acme/docs' },
      TEST_REPOSITORIES,
    );
    const moved = await getProject(db(), project.id);
    await assert.rejects(
      jobCodeHostCredentials(db(), config(true), moved, moved.repositoryUrl),
      (e: CodeHostError) =>
        e.code === 'code_host_auth' && /stored for gitlab at https:\/\/gitlab\.com/.test(e.message),
    );
  });

  test('a repository address allowed when it was set is refused when the job runs, if the setting changed', async () => {
    const project = await createProject(
      db(),
      { name: 'local', repositoryUrl: 'http://127.0.0.1:9/acme/docs.git', codeHostKind: 'gitea' },
      TEST_REPOSITORIES,
    );
    await setProjectSecret(db(), secretKey, project.id, 'codeHostToken', 'gitea_token_x');
    await assert.rejects(
      jobCodeHostCredentials(db(), config(false), project, project.repositoryUrl),
      (e: WorkspaceFailure) =>
        e instanceof WorkspaceFailure &&
        e.code === 'repository_unavailable' &&
        /DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE/.test(e.message),
    );
  });
});

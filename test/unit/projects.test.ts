import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors/app-error.ts';
import {
  createProject,
  getProject,
  listProjects,
  updateProject,
} from '../../src/modules/projects/service.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('projects', ({ db }) => {
  test('create detects the code host and defaults ref to main', async () => {
    const p = await createProject(
      db(),
      {
        name: ' Docs ',
        repositoryUrl: 'https://gitlab.com/group/sub/docs',
      },
      TEST_REPOSITORIES,
    );
    assert.match(p.id, /^prj_[0-9A-Za-z]{16}$/);
    assert.equal(p.name, 'Docs');
    assert.equal(p.ref, 'main');
    assert.deepEqual(p.codeHost, { kind: 'gitlab', baseUrl: null, apiUrl: null });
    assert.equal(p.model, null);
    assert.deepEqual(p.settings, {});
    assert.deepEqual(await getProject(db(), p.id), p);
  });

  test('every bad field is reported together, and credentials in URLs are refused without echo', async () => {
    await assert.rejects(
      createProject(
        db(),
        {
          name: '',
          repositoryUrl: 'https://user:ghp_secret@git.example.com/docs',
          ref: 'bad..ref',
          model: 'nomodel',
          settings: { maxSteps: 0, unknownThing: true } as never,
        },
        TEST_REPOSITORIES,
      ),
      (e: AppError) => {
        assert.equal(e.code, 'invalid_project');
        const names = (e.details ?? []).map((d) => d.name);
        for (const n of [
          'name',
          'repositoryUrl',
          'ref',
          'codeHost',
          'model',
          'settings.maxSteps',
          'settings',
        ]) {
          assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
        }
        assert.ok(!e.message.includes('ghp_secret'));
        return true;
      },
    );
  });

  test('self-hosted hosts need an explicit kind; update merges settings and re-detects the host', async () => {
    await assert.rejects(
      createProject(db(), { name: 'x', repositoryUrl: 'https://git.example.com/docs' }, TEST_REPOSITORIES),
      AppError,
    );
    const p = await createProject(
      db(),
      {
        name: 'Gitea docs',
        repositoryUrl: 'https://git.example.com/team/docs',
        codeHostKind: 'gitea',
        settings: { draftPullRequests: true },
      },
      TEST_REPOSITORIES,
    );
    const u = await updateProject(
      db(),
      p.id,
      { settings: { maxSteps: 10 }, ref: 'develop' },
      TEST_REPOSITORIES,
    );
    assert.deepEqual(u.settings, { draftPullRequests: true, maxSteps: 10 });
    assert.equal(u.ref, 'develop');
    const moved = await updateProject(
      db(),
      p.id,
      { repositoryUrl: 'https://github.com/team/docs' },
      TEST_REPOSITORIES,
    );
    assert.equal(moved.codeHost.kind, 'github');
    const cleared = await updateProject(
      db(),
      p.id,
      { settings: { draftPullRequests: null } as never },
      TEST_REPOSITORIES,
    );
    assert.deepEqual(cleared.settings, { maxSteps: 10 });
    assert.ok((await listProjects(db())).some((x) => x.id === p.id));
    await assert.rejects(
      updateProject(db(), 'prj_missing', { name: 'x' }, TEST_REPOSITORIES),
      (e: AppError) => e.code === 'project_not_found',
    );
  });

  test('repository and code-host URLs: https and public addresses only, unless the operator allows private ones', async () => {
    const strict = { allowPrivateAddresses: false };
    for (const [field, url] of [
      ['repositoryUrl', 'http://127.0.0.1:9418/x.git'],
      ['repositoryUrl', 'https://127.0.0.1/x.git'],
      ['repositoryUrl', 'https://localhost/acme/docs'],
      ['repositoryUrl', 'https://[::1]/acme/docs'],
      ['repositoryUrl', 'https://169.254.169.254/acme/docs'],
      ['repositoryUrl', 'https://10.0.0.5/acme/docs'],
      ['repositoryUrl', 'http://git.example.com/acme/docs'],
      ['codeHostBaseUrl', 'https://192.168.1.10'],
      ['codeHostApiUrl', 'https://[fd00::1]/api/v3'],
    ] as const) {
      const input = {
        name: 'x',
        repositoryUrl: 'https://git.example.com/acme/docs',
        codeHostKind: 'github' as const,
        [field]: url,
      };
      await assert.rejects(
        createProject(db(), input, strict),
        (e: AppError) =>
          e.code === 'invalid_project' &&
          (e.details ?? []).some((d) => d.name === field) &&
          /DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true/.test(e.message),
        url,
      );
    }
    const local = await createProject(
      db(),
      { name: 'local', repositoryUrl: 'http://127.0.0.1:9418/x.git', codeHostKind: 'gitea' },
      TEST_REPOSITORIES,
    );
    // Moving an existing project there is refused the same way.
    const p = await createProject(db(), { name: 'y', repositoryUrl: 'https://github.com/acme/docs' }, strict);
    await assert.rejects(
      updateProject(db(), p.id, { repositoryUrl: local.repositoryUrl, codeHostKind: 'github' }, strict),
      (e: AppError) => e.code === 'invalid_project' && /must use https/.test(e.message),
    );
  });

  test('update to a repository on an unknown host without a code host is refused, as create is', async () => {
    const p = await createProject(
      db(),
      { name: 'z', repositoryUrl: 'https://github.com/acme/docs' },
      TEST_REPOSITORIES,
    );
    await assert.rejects(
      updateProject(db(), p.id, { repositoryUrl: 'https://git.example.com/acme/docs' }, TEST_REPOSITORIES),
      (e: AppError) =>
        e.code === 'invalid_project' && /is not known/.test(e.message) && /--code-host/.test(e.message),
    );
    assert.equal((await getProject(db(), p.id)).repositoryUrl, 'https://github.com/acme/docs');
    // Another repository on the same host keeps the kind; an explicit kind is taken.
    const same = await updateProject(
      db(),
      p.id,
      { repositoryUrl: 'https://github.com/acme/other' },
      TEST_REPOSITORIES,
    );
    assert.equal(same.codeHost.kind, 'github');
    const given = await updateProject(
      db(),
      p.id,
      {
        repositoryUrl: 'https://git.example.com/acme/docs',
        codeHostKind: 'github',
        codeHostApiUrl: 'https://git.example.com/github-api/',
      },
      TEST_REPOSITORIES,
    );
    assert.deepEqual(given.codeHost, {
      kind: 'github',
      baseUrl: null,
      apiUrl: 'https://git.example.com/github-api/',
    });
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors/app-error.ts';
import {
  createProject,
  getProject,
  listProjects,
  updateProject,
} from '../../src/modules/projects/service.ts';
import { forEachBackend } from '../helpers/databases.ts';

await forEachBackend('projects', ({ db }) => {
  test('create detects the code host and defaults ref to main', async () => {
    const p = await createProject(db(), {
      name: ' Docs ',
      repositoryUrl: 'https://gitlab.com/group/sub/docs',
    });
    assert.match(p.id, /^prj_[0-9A-Za-z]{16}$/);
    assert.equal(p.name, 'Docs');
    assert.equal(p.ref, 'main');
    assert.deepEqual(p.codeHost, { kind: 'gitlab', baseUrl: null });
    assert.equal(p.model, null);
    assert.deepEqual(p.settings, {});
    assert.deepEqual(await getProject(db(), p.id), p);
  });

  test('every bad field is reported together, and credentials in URLs are refused without echo', async () => {
    await assert.rejects(
      createProject(db(), {
        name: '',
        repositoryUrl: 'https://user:ghp_secret@git.example.com/docs',
        ref: 'bad..ref',
        model: 'nomodel',
        settings: { maxSteps: 0, unknownThing: true } as never,
      }),
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
      createProject(db(), { name: 'x', repositoryUrl: 'https://git.example.com/docs' }),
      AppError,
    );
    const p = await createProject(db(), {
      name: 'Gitea docs',
      repositoryUrl: 'https://git.example.com/team/docs',
      codeHostKind: 'gitea',
      settings: { draftPullRequests: true },
    });
    const u = await updateProject(db(), p.id, { settings: { maxSteps: 10 }, ref: 'develop' });
    assert.deepEqual(u.settings, { draftPullRequests: true, maxSteps: 10 });
    assert.equal(u.ref, 'develop');
    const moved = await updateProject(db(), p.id, { repositoryUrl: 'https://github.com/team/docs' });
    assert.equal(moved.codeHost.kind, 'github');
    const cleared = await updateProject(db(), p.id, { settings: { draftPullRequests: null } as never });
    assert.deepEqual(cleared.settings, { maxSteps: 10 });
    assert.ok((await listProjects(db())).some((x) => x.id === p.id));
    await assert.rejects(
      updateProject(db(), 'prj_missing', { name: 'x' }),
      (e: AppError) => e.code === 'project_not_found',
    );
  });
});

// The docs checks' base on a real workspace (git stand-in, real mirror and worktree): pages the
// job has not touched are read from the worktree, a page it changed is read from git by its blob
// id, pages naming a changed page are found with git grep, and a base kept for a later job still
// reads after the first job's worktree is gone.
import assert from 'node:assert/strict';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { baseSnapshot } from '../../src/agent/checks/base-snapshot.ts';
import { Workspaces } from '../../src/agent/workspace/workspaces.ts';
import { checkSnapshots, directorySource, listDirectory } from '../../src/docs-checks/index.ts';
import { type GitHttpServer, SAMPLE_DOCS, startGitHttpServer } from '../stand-ins/git-http-server.ts';

const AUTHORIZATION = `Basic ${Buffer.from('x-access-token:ghs_baseSnapshotToken0123456789').toString('base64')}`;
let server: GitHttpServer;
let dir: string;

before(async () => {
  server = await startGitHttpServer({ authorization: AUTHORIZATION });
  dir = await mkdtemp('/dev/shm/docwright-checks-base-');
  await server.createRepo('docs', SAMPLE_DOCS);
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

test('the base is the commit, whatever the worktree holds; a kept base reads after its worktree is gone', async () => {
  const spaces = new Workspaces({ cacheDir: join(dir, 'repos'), worktreesDir: join(dir, 'worktrees') });
  const repository = { url: server.repoUrl('docs'), authorization: AUTHORIZATION, secrets: [] };
  const open = (jobId: string) =>
    spaces.open({ repository, jobId, branch: `docwright/${jobId}`, start: { kind: 'new', ref: null } });
  const first = await open('job_BaseOne0000000001');
  // The job edits guide.md (dropping a heading index.md does not link to) and deletes api.md
  // before the base is read: the base must still be the commit's.
  await writeFile(join(first.path, 'docs/guide.md'), '# Guide\n\nNothing left.\n');
  await unlink(join(first.path, 'docs/reference/api.md'));
  const base = await baseSnapshot('docs', first, undefined);
  assert.equal(base.info.framework, 'markdown');
  assert.match((await base.text('docs/guide.md')) ?? '', /## Install/);
  assert.match((await base.text('docs/reference/api.md')) ?? '', /GET \/items/);
  assert.deepEqual(await base.pagesMentioning('guide'), ['docs/index.md']);
  // The search asks git for pages only, in every directory; other files are not searched.
  const pageGlobs = ['*.md', '*.mdx', '*.markdown'];
  assert.deepEqual(await first.grepBase('guide', pageGlobs), ['docs/index.md']);
  assert.deepEqual(await first.grepBase('deploy'), ['.github/workflows/deploy.yml']);
  assert.deepEqual(await first.grepBase('deploy', pageGlobs), []);
  const branchFiles = (await listDirectory(first.path)).filter((path) => !path.startsWith('.git'));
  const branch = await base.withChanges(directorySource(first.path, branchFiles), [
    'docs/guide.md',
    'docs/reference/api.md',
  ]);
  const result = await checkSnapshots(base, branch, { changed: ['docs/guide.md', 'docs/reference/api.md'] });
  assert.deepEqual(result.introduced, []);
  await first.remove();

  // A later job on the same commit gets the kept base, which reads through the new worktree.
  const second = await open('job_BaseTwo0000000002');
  const again = await baseSnapshot('docs', second, undefined);
  assert.equal(again, base);
  assert.match((await again.text('README.md')) ?? '', /Sample docs/);
  await second.remove();
});

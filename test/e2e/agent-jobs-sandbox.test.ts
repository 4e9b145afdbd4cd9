// The sandbox end to end: the repository itself carries traps (a link to /etc/passwd and a link
// to a file outside the worktree, both committed), and the scripted model tries every way out it
// has: "../", absolute paths, reading and writing through the links, git's hooks, a CI workflow.
// Every call is refused (tool_call events with ok=false, the model told why), nothing outside the
// worktree changes, and the job ends normally with no change.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, REPOSITORY, startAgentHarness } from './agent-harness.ts';
import { eventually } from './scripts.ts';

const run = promisify(execFile);

/** Every file under dir with a hash of its content (links as their target), for before/after. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true, encoding: 'utf8' });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) out.set(path, 'link');
    else if (entry.isFile())
      out.set(
        path,
        createHash('sha256')
          .update(await readFile(path))
          .digest('hex'),
      );
    else if (entry.isDirectory()) out.set(path, 'dir');
  }
  return out;
}

await forEachBackend('the sandbox, end to end', ({ db }) => {
  let h: AgentHarness;
  let outside: string;
  let sentinel: string;
  before(async () => {
    h = await startAgentHarness(db(), { kind: 'gitea' });
    outside = await mkdtemp('/dev/shm/docwright-outside-');
    sentinel = join(outside, 'sentinel.md');
    await writeFile(sentinel, '# Outside the worktree\n\nDo not touch.\n');
    // Commit the traps into the repository, as a hostile or careless contributor could.
    const work = await mkdtemp('/dev/shm/docwright-traps-');
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'Contributor',
      GIT_AUTHOR_EMAIL: 'contributor@example.test',
      GIT_COMMITTER_NAME: 'Contributor',
      GIT_COMMITTER_EMAIL: 'contributor@example.test',
    };
    await run('git', ['clone', '--quiet', h.git.repoPath(REPOSITORY), work], { env });
    await symlink('/etc/passwd', join(work, 'docs', 'passwd.md'));
    await symlink(sentinel, join(work, 'docs', 'outside.md'));
    await run('git', ['add', '--all'], { cwd: work, env });
    await run('git', ['commit', '--quiet', '-m', 'Add links'], { cwd: work, env });
    await run('git', ['push', '--quiet', 'origin', 'HEAD:main'], { cwd: work, env });
    await rm(work, { recursive: true, force: true });
  });
  after(async () => {
    await h.close();
    await rm(outside, { recursive: true, force: true });
  });

  test('every way out is refused, nothing outside the worktree changes, the job ends with no change', {
    timeout: 60_000,
  }, async () => {
    const passwdBefore = await readFile('/etc/passwd', 'utf8');
    const outsideBefore = await snapshot(outside);
    const dataParent = join(h.dataDir, '..');
    const escapeTarget = join(dataParent, 'escaped.md');
    const absoluteTarget = join(outside, 'absolute.md');
    const attempts: [string, Record<string, string>][] = [
      ['read_file', { path: '../../../../etc/passwd' }],
      ['read_file', { path: '/etc/passwd' }],
      ['create_file', { path: '../../escaped.md', content: 'escaped' }],
      ['create_file', { path: absoluteTarget, content: 'absolute' }],
      ['read_file', { path: 'docs/passwd.md' }],
      ['edit_file', { path: 'docs/outside.md', old_text: 'Do not touch.', new_text: 'Touched.' }],
      ['delete_file', { path: 'docs/outside.md' }],
      ['move_file', { from: 'docs/outside.md', to: 'docs/inside.md' }],
      ['move_file', { from: 'docs/guide.md', to: '../guide.md' }],
      ['create_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch /tmp/pwned\n' }],
      ['read_file', { path: '.git/config' }],
      ['create_file', { path: '.github/workflows/x.yml', content: 'on: push\n' }],
      ['edit_file', { path: '.github/workflows/deploy.yml', old_text: 'jobs: {}', new_text: 'jobs: {x: 1}' }],
      ['delete_file', { path: '.github/workflows/deploy.yml' }],
    ];
    const first = h.llm.requests.length;
    h.llm.enqueue(
      ...attempts.map(([name, input]) => reply.toolCall(name, input)),
      reply.toolCall('search', { pattern: 'root:' }),
      reply.toolCall('finish', { title: 'Nothing to change', summary: 'Every attempt was refused.' }),
    );
    const created = await h.createJob('Try to escape the worktree');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(job.prLink, null, 'no file changed');

    const calls = (await h.events(created.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => e.data as { tool: string; path?: string; ok: boolean; error?: string });
    const refused = calls.filter((c) => c.tool !== 'search' && c.tool !== 'finish');
    assert.equal(refused.length, attempts.length);
    for (const call of refused) assert.equal(call.ok, false, `${call.tool} ${call.path} was refused`);
    // The model was told each refusal, and never saw a line of the password file.
    const results = h.llm.requests.slice(first).flatMap((r) => r.latestToolResults);
    assert.ok(results.length >= attempts.length);
    assert.ok(!JSON.stringify(h.llm.requests.slice(first).map((r) => r.body)).includes('root:x:0:0'));

    assert.equal(await readFile('/etc/passwd', 'utf8'), passwdBefore);
    assert.deepEqual(await snapshot(outside), outsideBefore);
    await assert.rejects(stat(escapeTarget), { code: 'ENOENT' });
    await assert.rejects(stat(absoluteTarget), { code: 'ENOENT' });
    // No hook was planted in the mirror (where the worktree's .git points), and the workflow and
    // the links are on main as they were.
    for (const mirror of await readdir(join(h.dataDir, 'repos'))) {
      if (!mirror.endsWith('.git')) continue;
      await assert.rejects(stat(join(h.dataDir, 'repos', mirror, 'hooks', 'pre-commit')), { code: 'ENOENT' });
    }
    assert.equal(
      await h.fileOnBranch('main', '.github/workflows/deploy.yml'),
      'name: deploy\non: push\njobs: {}\n',
    );
    assert.equal(await h.fileOnBranch('main', 'docs/outside.md'), sentinel);
    // Removed after the outcome is recorded (docs/agent-jobs.md, step 7).
    await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
    assert.equal(h.host.pulls().length, 0);
  });
});

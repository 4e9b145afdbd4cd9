// The sandbox of the agent's tools: the ways out of the worktree (../, absolute paths, a symlink
// to /etc/passwd, .git/hooks/pre-commit, .github/workflows/x.yml) and a few more are refused by the real tools on a real git checkout, and nothing outside the worktree changes
// (a sibling directory and /etc/passwd are hashed before and after).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentToolbox, createAgentTools } from '../../src/agent/tools/agent-tools.ts';
import {
  BINARY_SNIFF_BYTES,
  DEFAULT_DENY_GLOBS,
  Guards,
  MAX_FILE_BYTES,
  ToolRefusal,
  truncateOutput,
} from '../../src/agent/tools/guards.ts';
import type { ToolEvent } from '../../src/agent/tools/tool-context.ts';
import { createCheckout, SAMPLE_DOCS } from '../stand-ins/git-http-server.ts';

/** A digest of a directory tree: names, kinds, contents and link targets. */
async function hashTree(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (path: string, name: string): Promise<void> => {
    const info = await lstat(path);
    hash.update(`${name}\0${info.mode}\0`);
    if (info.isSymbolicLink()) hash.update(`link:${await readlink(path)}\0`);
    else if (info.isDirectory()) {
      for (const entry of (await readdir(path)).sort()) await walk(join(path, entry), `${name}/${entry}`);
    } else hash.update(await readFile(path));
  };
  await walk(dir, '.');
  return hash.digest('hex');
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

let base: string;
let worktree: string;
let sibling: string;
let toolbox: AgentToolbox;
const events: ToolEvent[] = [];

before(async () => {
  base = await mkdtemp('/dev/shm/docwright-guards-');
  worktree = await createCheckout(join(base, 'worktree'));
  sibling = join(base, 'sibling');
  await mkdir(sibling);
  await writeFile(join(sibling, 'secret.txt'), 'a file next to the worktree\n');
  // Links a repository could contain (or a model could find): out to /etc/passwd, out to the
  // sibling (relative and absolute), into .git, to nowhere, and one harmless link inside.
  await symlink('/etc/passwd', join(worktree, 'docs/passwd'));
  await symlink('../sibling', join(worktree, 'escape'));
  await symlink(sibling, join(worktree, 'abs-escape'));
  await symlink('.git', join(worktree, 'gitlink'));
  await symlink('../sibling/missing.txt', join(worktree, 'dangling'));
  await symlink('guide.md', join(worktree, 'docs/link-to-guide.md'));
  toolbox = await createAgentTools({ root: worktree, onEvent: (event) => void events.push(event) });
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('every escape is refused and nothing outside the worktree changes', () => {
  // Built when the test runs: the absolute-path attack needs the temp directory.
  const attackList = (): Array<[string, Record<string, unknown>, RegExp]> => [
    ['read_file', { path: '../sibling/secret.txt' }, /leads outside the repository/],
    ['read_file', { path: 'docs/../../sibling/secret.txt' }, /leads outside the repository/],
    ['read_file', { path: '/etc/passwd' }, /is absolute/],
    ['read_file', { path: 'docs/passwd' }, /outside the repository through a symbolic link/],
    [
      'edit_file',
      { path: 'docs/passwd', old_text: 'docwright-never-present', new_text: 'x' },
      /symbolic link/,
    ],
    ['create_file', { path: 'docs/passwd', content: 'x' }, /symbolic link/],
    ['delete_file', { path: 'docs/passwd' }, /symbolic link/],
    ['move_file', { from: 'docs/passwd', to: 'docs/passwd-moved' }, /symbolic link/],
    ['read_file', { path: 'escape/secret.txt' }, /symbolic link/],
    ['create_file', { path: 'escape/new.txt', content: 'x' }, /symbolic link/],
    ['create_file', { path: 'abs-escape/new.txt', content: 'x' }, /symbolic link/],
    ['create_file', { path: '../sibling/new.txt', content: 'x' }, /leads outside/],
    ['create_file', { path: `${base}/sibling/new.txt`, content: 'x' }, /is absolute/],
    [
      'edit_file',
      { path: '../sibling/secret.txt', old_text: 'a file', new_text: 'changed' },
      /leads outside/,
    ],
    ['edit_file', { path: 'escape/secret.txt', old_text: 'a file', new_text: 'changed' }, /symbolic link/],
    ['delete_file', { path: '../sibling/secret.txt' }, /leads outside/],
    ['delete_file', { path: 'escape/secret.txt' }, /symbolic link/],
    ['delete_file', { path: 'escape' }, /symbolic link/],
    ['move_file', { from: 'docs/guide.md', to: '../sibling/guide.md' }, /leads outside/],
    ['move_file', { from: 'docs/guide.md', to: 'escape/guide.md' }, /symbolic link/],
    ['move_file', { from: 'escape/secret.txt', to: 'docs/stolen.txt' }, /symbolic link/],
    ['read_file', { path: 'dangling' }, /missing target/],
    ['create_file', { path: 'dangling', content: 'x' }, /missing target/],
    ['create_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch /tmp/pwned\n' }, /\.git/],
    ['read_file', { path: '.git/config' }, /\.git/],
    ['edit_file', { path: '.git/config', old_text: '[core]', new_text: '[core]\n\thooksPath = x' }, /\.git/],
    ['delete_file', { path: '.git/HEAD' }, /\.git/],
    ['move_file', { from: 'docs/guide.md', to: '.git/hooks/post-checkout' }, /\.git/],
    ['create_file', { path: 'gitlink/hooks/pre-commit', content: '#!/bin/sh\n' }, /\.git/],
    ['read_file', { path: '.GIT/config' }, /\.git/],
    ['create_file', { path: 'docs/.git/config', content: 'x' }, /\.git/],
    ['create_file', { path: '.github/workflows/x.yml', content: 'on: push\n' }, /deny list/],
    [
      'edit_file',
      { path: '.github/workflows/deploy.yml', old_text: 'on: push', new_text: 'on: pull_request' },
      /deny list/,
    ],
    ['read_file', { path: '.github/workflows/deploy.yml' }, /deny list/],
    ['delete_file', { path: '.github/workflows/deploy.yml' }, /deny list/],
    ['move_file', { from: '.github/workflows/deploy.yml', to: 'docs/deploy.yml' }, /deny list/],
    ['move_file', { from: 'docs/guide.md', to: '.github/workflows/guide.yml' }, /deny list/],
    ['read_file', { path: 'docs\\..\\..\\sibling\\secret.txt' }, /backslash/],
    ['read_file', { path: '' }, /empty/],
    ['read_file', { path: '.' }, /repository root/],
    ['list_files', { pattern: '../*' }, /\.\./],
    ['list_files', { pattern: '/etc/*' }, /absolute/],
    ['search', { pattern: 'root', path_glob: '../**' }, /\.\./],
  ];

  test('each attack is answered with a refusal that says why, and an event marks it failed', async () => {
    const attacks = attackList();
    const before = {
      sibling: await hashTree(sibling),
      passwd: await hashTree('/etc/passwd'),
      events: events.length,
    };
    const worktreeBefore = await hashTree(join(worktree, 'docs'));
    for (const [name, input, reason] of attacks) {
      const result = await toolbox.run(name, input);
      assert.equal(result.ok, false, `${name} ${JSON.stringify(input)} was not refused: ${result.text}`);
      assert.match(result.text, reason, `${name} ${JSON.stringify(input)}: ${result.text}`);
    }
    assert.equal(await hashTree(sibling), before.sibling, 'the sibling directory changed');
    assert.equal(await hashTree('/etc/passwd'), before.passwd, '/etc/passwd changed');
    assert.equal(
      await hashTree(join(worktree, 'docs')),
      worktreeBefore,
      'docs/ changed (a refused move went half-way)',
    );
    assert.equal(await exists(join(worktree, '.git/hooks/pre-commit')), false);
    assert.equal(await exists(join(worktree, '.github/workflows/x.yml')), false);
    assert.equal(
      await readFile(join(worktree, '.github/workflows/deploy.yml'), 'utf8'),
      SAMPLE_DOCS['.github/workflows/deploy.yml'],
    );
    assert.equal(
      (await lstat(join(worktree, 'docs/passwd'))).isSymbolicLink(),
      true,
      'the link itself was removed',
    );
    const newEvents = events.slice(before.events);
    assert.equal(newEvents.length, attacks.length);
    assert.ok(newEvents.every((event) => event.ok === false && typeof event.error === 'string'));
  });

  test('listing and searching never show .git or denied files', async () => {
    const listed = await toolbox.run('list_files', { pattern: '**' });
    assert.equal(listed.ok, true);
    assert.doesNotMatch(listed.text, /^\.git\//m);
    assert.doesNotMatch(listed.text, /\.github\/workflows/);
    assert.match(listed.text, /^docs\/guide\.md$/m);
    const searched = await toolbox.run('search', { pattern: 'deploy|push' });
    assert.doesNotMatch(searched.text, /\.github\/workflows/);
    const inGit = await toolbox.run('search', { pattern: 'repositoryformatversion' });
    assert.match(inGit.text, /No matches/);
  });
});

describe('guards, one rule at a time', () => {
  test('paths are normalised; .. that stays inside is fine', async () => {
    const guards = await Guards.create(worktree);
    assert.equal(guards.checkRequestedPath('docs/./guide.md'), 'docs/guide.md');
    assert.equal(guards.checkRequestedPath('docs/../README.md'), 'README.md');
    assert.equal(guards.checkRequestedPath('docs/reference/'), 'docs/reference');
    assert.throws(() => guards.checkRequestedPath('docs/../../x'), ToolRefusal);
    assert.throws(() => guards.checkRequestedPath('a\0b'), /NUL/);
  });

  test('a symlink that stays inside is followed for reading', async () => {
    const result = await toolbox.run('read_file', { path: 'docs/link-to-guide.md' });
    assert.equal(result.ok, true, result.text);
    assert.match(result.text, /# Guide/);
  });

  test('the deny list is the project’s: replacing it frees .github/workflows, never .git', async () => {
    assert.deepEqual(DEFAULT_DENY_GLOBS, ['.github/workflows/**']);
    const open = await Guards.create(worktree, []);
    assert.equal(open.isAllowed('.github/workflows/deploy.yml'), true);
    assert.equal(open.isAllowed('.git/config'), false);
    const strict = await Guards.create(worktree, ['docs/reference/**', '*.lock']);
    assert.equal(strict.isAllowed('docs/reference/api.md'), false);
    assert.equal(strict.isAllowed('docs/reference'), false);
    assert.equal(strict.isAllowed('yarn.lock'), false);
    assert.equal(strict.isAllowed('docs/guide.md'), true);
    assert.equal(strict.isAllowed('.github/workflows/deploy.yml'), true);
    await assert.rejects(Guards.create(worktree, ['']), /non-empty/);
  });

  test('a link inside the worktree that resolves into a denied directory is refused', async () => {
    await symlink('.github/workflows', join(worktree, 'workflows-link'));
    try {
      const result = await toolbox.run('create_file', {
        path: 'workflows-link/evil.yml',
        content: 'on: push\n',
      });
      assert.equal(result.ok, false);
      assert.match(result.text, /deny list/);
      assert.equal(await exists(join(worktree, '.github/workflows/evil.yml')), false);
    } finally {
      await rm(join(worktree, 'workflows-link'));
    }
  });

  test('files over 1 MiB are neither read nor edited; exactly 1 MiB is read', async () => {
    await writeFile(join(worktree, 'big.md'), 'a'.repeat(MAX_FILE_BYTES + 1));
    await writeFile(join(worktree, 'limit.md'), `${'b'.repeat(MAX_FILE_BYTES - 1)}\n`);
    try {
      for (const [name, input] of [
        ['read_file', { path: 'big.md' }],
        ['edit_file', { path: 'big.md', old_text: 'a', new_text: 'b' }],
      ] as const) {
        const result = await toolbox.run(name, input);
        assert.equal(result.ok, false);
        assert.match(result.text, /big\.md" is 1 MiB; files over 1 MiB are not read or edited/);
      }
      const limit = await toolbox.run('read_file', { path: 'limit.md' });
      assert.equal(limit.ok, true, limit.text);
      assert.equal((await stat(join(worktree, 'big.md'))).size, MAX_FILE_BYTES + 1, 'big.md was changed');
    } finally {
      await rm(join(worktree, 'big.md'));
      await rm(join(worktree, 'limit.md'));
    }
  });

  test('binary files (a NUL early on, or invalid UTF-8) are neither read nor edited', async () => {
    const nul = Buffer.concat([Buffer.from('PNG'), Buffer.from([0, 1, 2]), Buffer.alloc(100, 65)]);
    const latin1 = Buffer.from('caf\xe9 au lait\n', 'latin1');
    const lateNul = Buffer.concat([Buffer.alloc(BINARY_SNIFF_BYTES, 65), Buffer.from([0])]);
    await writeFile(join(worktree, 'image.png'), nul);
    await writeFile(join(worktree, 'latin1.md'), latin1);
    await writeFile(join(worktree, 'late-nul.txt'), lateNul);
    try {
      const image = await toolbox.run('read_file', { path: 'image.png' });
      assert.match(image.text, /binary file/);
      const edit = await toolbox.run('edit_file', { path: 'image.png', old_text: 'PNG', new_text: 'JPG' });
      assert.match(edit.text, /binary file/);
      assert.deepEqual(await readFile(join(worktree, 'image.png')), nul);
      const text = await toolbox.run('read_file', { path: 'latin1.md' });
      assert.match(text.text, /not valid UTF-8/);
      // A NUL past the first 8 KiB is not looked for (the same rule git uses).
      const late = await toolbox.run('read_file', { path: 'late-nul.txt' });
      assert.equal(late.ok, true);
    } finally {
      for (const name of ['image.png', 'latin1.md', 'late-nul.txt']) await rm(join(worktree, name));
    }
  });

  test('content over 1 MiB is not written, by create or by edit', async () => {
    const huge = 'x'.repeat(MAX_FILE_BYTES + 1);
    const created = await toolbox.run('create_file', { path: 'huge.md', content: huge });
    assert.equal(created.ok, false);
    assert.match(created.text, /would be 1 MiB; files over 1 MiB cannot be written/);
    assert.equal(await exists(join(worktree, 'huge.md')), false);
    const edited = await toolbox.run('edit_file', {
      path: 'README.md',
      old_text: 'Sample docs',
      new_text: huge,
    });
    assert.equal(edited.ok, false);
    assert.match(edited.text, /cannot be written/);
    assert.equal(await readFile(join(worktree, 'README.md'), 'utf8'), SAMPLE_DOCS['README.md']);
  });

  test('long outputs are cut at a line end with a hint', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const cut = truncateOutput(text, 'ask for less', 50);
    assert.ok(cut.length < text.length);
    assert.match(cut, /\n\[output truncated: ask for less\]$/);
    assert.match(cut, /^line 0\nline 1\n/);
    assert.equal(truncateOutput('short', 'never shown', 50), 'short');
  });
});

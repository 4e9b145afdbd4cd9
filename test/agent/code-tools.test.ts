// The code tools and the code mirror on real git: a bare repository on the git smart-HTTP
// stand-in, fetched by CodeMirrors at a commit, then read by code_list / code_read / code_search
// at that commit while the branch has moved on; every sandbox refusal the docs tools have; the
// diff cut between files; no fetch when the commit is already there; a refused credential that
// never shows in the failure; and no code tools for a toolbox without a code source.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { capDiff, summariseChange } from '../../src/agent/code-source/change-summary.ts';
import { CodeMirrors } from '../../src/agent/code-source/code-mirror.ts';
import { type AgentToolbox, createAgentTools } from '../../src/agent/tools/agent-tools.ts';
import { WorkspaceFailure } from '../../src/agent/workspace/failures.ts';
import {
  commitToBare,
  createCheckout,
  type GitHttpServer,
  SAMPLE_DOCS,
  startGitHttpServer,
} from '../stand-ins/git-http-server.ts';

const TOKEN = `tok_${randomBytes(12).toString('hex')}`;
const AUTH = `Bearer ${TOKEN}`;

let base: string;
let server: GitHttpServer;
let mirrors: CodeMirrors;
let merged: string;
let later: string;
let pushBefore: string;
let toolbox: AgentToolbox;

before(async () => {
  base = await mkdtemp('/dev/shm/docwright-code-tools-');
  server = await startGitHttpServer({ authorization: AUTH });
  const bare = await server.createRepo('acme/engine', {
    'README.md': '# Engine\n',
    'src/config.ts': 'export const DEFAULTS = { color: true };\n',
    '.github/workflows/ci.yml': 'name: ci # DEFAULTS\n',
  });
  pushBefore = await commitToBare(bare, { 'src/a.ts': 'export const A = 1;\n' }, 'A');
  merged = await commitToBare(
    bare,
    {
      'src/installer.ts': 'export const YES_FLAG = "--yes";\n',
      'assets/logo.bin': Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]),
      'data/huge.txt': `${'y'.repeat(99)}\n`.repeat(11_000),
    },
    'Add --yes',
    { symlinks: { 'src/passwd': '/etc/passwd' } },
  );
  later = await commitToBare(
    bare,
    { 'src/installer.ts': 'export const YES_FLAG = "--assume-yes";\n' },
    'Rename',
  );
  mirrors = new CodeMirrors({ cacheDir: join(base, 'code-repos') });
  const commit = await mirrors.ensure({
    url: server.repoUrl('acme/engine'),
    authorization: AUTH,
    commit: merged,
  });
  const root = await createCheckout(join(base, 'docs'), SAMPLE_DOCS);
  toolbox = await createAgentTools({
    root,
    code: { mirrorPath: commit.mirrorPath, commit: merged, repository: 'acme/engine' },
  });
});
after(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

describe('the code tools', () => {
  test('are offered with descriptions that say what they read', () => {
    for (const name of ['code_list', 'code_read', 'code_search']) {
      const description = String((toolbox.tools[name] as { description?: string }).description);
      assert.match(description, /acme\/engine at commit [0-9a-f]{12}/, name);
      assert.match(description, /Read-only/, name);
    }
  });

  test('code_list lists the commit’s files, without denied ones', async () => {
    const all = await toolbox.run('code_list', {});
    assert.equal(all.ok, true);
    assert.match(
      all.text,
      /^README\.md\nassets\/logo\.bin\ndata\/huge\.txt\nsrc\/a\.ts\nsrc\/config\.ts\nsrc\/installer\.ts\nsrc\/passwd\n\(7 files\)$/,
    );
    assert.equal((await toolbox.run('code_list', { pattern: 'src' })).text.split('\n').length, 5);
    assert.match(
      (await toolbox.run('code_list', { pattern: '*.py' })).text,
      /No files of the code repository match/,
    );
    assert.equal((await toolbox.run('code_list', { pattern: '../*' })).ok, false);
  });

  test('code_read answers the file at the commit, not at the branch’s tip', async () => {
    const read = await toolbox.run('code_read', { path: 'src/installer.ts' });
    assert.equal(read.ok, true);
    assert.equal(read.text, 'src/installer.ts (lines 1-1 of 1)\n1\texport const YES_FLAG = "--yes";');
    const range = await toolbox.run('code_read', { path: 'data/huge.txt', start_line: 3, end_line: 4 });
    assert.equal(range.ok, false, 'the 1.1 MB file is refused before any line');
  });

  test('code_read refuses what read_file refuses', async () => {
    const refusals: [string, RegExp][] = [
      ['../docs/README.md', /leads outside the repository/],
      ['/etc/passwd', /is absolute/],
      ['.git/config', /inside \.git/],
      ['.github/workflows/ci.yml', /deny list/],
      ['src/passwd', /not a regular file \(a symbolic link or a submodule\)/],
      ['assets/logo.bin', /binary file/],
      ['data/huge.txt', /files over 1 MiB are not read/],
      ['src', /is a directory; use code_list/],
      ['src/nope.ts', /There is no file "src\/nope\.ts" in the code repository/],
      ['src\\a.ts', /backslash/],
    ];
    for (const [path, message] of refusals) {
      const result = await toolbox.run('code_read', { path });
      assert.equal(result.ok, false, path);
      assert.match(result.text, message, path);
    }
  });

  test('code_search greps the commit, skipping denied files', async () => {
    const found = await toolbox.run('code_search', { pattern: 'YES_FLAG|DEFAULTS' });
    assert.equal(found.ok, true);
    assert.equal(
      found.text,
      'src/config.ts:1: export const DEFAULTS = { color: true };\nsrc/installer.ts:1: export const YES_FLAG = "--yes";\n(2 matching lines)',
    );
    assert.match((await toolbox.run('code_search', { pattern: 'assume' })).text, /No matches/);
    const globbed = await toolbox.run('code_search', { pattern: 'export', path_glob: 'src/a.ts' });
    assert.equal(globbed.text, 'src/a.ts:1: export const A = 1;\n(1 matching lines)');
    const bad = await toolbox.run('code_search', { pattern: '(' });
    assert.equal(bad.ok, false);
    assert.match(bad.text, /The search failed; check the regular expression/);
  });

  test('a toolbox without a code source has no code tools', async () => {
    const plain = await createAgentTools({ root: join(base, 'docs') });
    assert.deepEqual(
      Object.keys(plain.tools).filter((name) => name.startsWith('code_')),
      [],
    );
    const called = await plain.run('code_read', { path: 'src/installer.ts' });
    assert.equal(called.ok, false);
    assert.match(called.text, /There is no tool named "code_read"/);
  });
});

describe('the code mirror', () => {
  test('a commit already there is not fetched again', async () => {
    const requests = server.requests.length;
    await mirrors.ensure({ url: server.repoUrl('acme/engine'), authorization: AUTH, commit: merged });
    assert.equal(server.requests.length, requests);
  });

  test('changed files and diff: against the first parent, or a push’s before', async () => {
    const url = server.repoUrl('acme/engine');
    const mergedCommit = await mirrors.ensure({ url, authorization: AUTH, commit: merged });
    const change = await summariseChange(mirrors.runner, mergedCommit);
    assert.deepEqual(change.changedFiles, [
      'assets/logo.bin',
      'data/huge.txt',
      'src/installer.ts',
      'src/passwd',
    ]);
    assert.match(change.diff, /\+export const YES_FLAG = "--yes";/);
    assert.doesNotMatch(change.diff, /src\/a\.ts/);
    const push = await mirrors.ensure({ url, authorization: AUTH, commit: later, before: pushBefore });
    const pushed = await summariseChange(mirrors.runner, push);
    assert.deepEqual(pushed.changedFiles, [
      'assets/logo.bin',
      'data/huge.txt',
      'src/installer.ts',
      'src/passwd',
    ]);
    assert.match(pushed.diff, /\+export const YES_FLAG = "--assume-yes";/);
    // data/huge.txt alone is over 1 MB: it is left out, and the note says so.
    assert.match(pushed.diff, /\[diff cut at 40000 characters: \d file\(s\) left out: .*data\/huge\.txt/);
    assert.ok(pushed.diff.length < 41_000);
  });

  test('a commit first fetched as another one’s parent is deepened when a run asks for it', async () => {
    const fresh = new CodeMirrors({ cacheDir: join(base, 'fresh') });
    const url = server.repoUrl('acme/engine');
    await fresh.ensure({ url, authorization: AUTH, commit: later });
    const parent = await fresh.ensure({ url, authorization: AUTH, commit: merged });
    assert.equal(parent.base, pushBefore, 'the merged commit is compared with its own parent');
    const change = await summariseChange(fresh.runner, parent);
    assert.deepEqual(change.changedFiles, [
      'assets/logo.bin',
      'data/huge.txt',
      'src/installer.ts',
      'src/passwd',
    ]);
  });

  test('a refused credential fails with a message that does not carry it', async () => {
    const wrong = `Bearer ${TOKEN}x`;
    await assert.rejects(
      new CodeMirrors({ cacheDir: join(base, 'other') }).ensure({
        url: server.repoUrl('acme/engine'),
        authorization: wrong,
        commit: merged,
      }),
      (error: unknown) => {
        assert.ok(error instanceof WorkspaceFailure);
        assert.doesNotMatch(error.message, new RegExp(TOKEN));
        return true;
      },
    );
  });

  test('a commit id that is not one is refused before git runs', async () => {
    await assert.rejects(
      mirrors.ensure({ url: server.repoUrl('acme/engine'), authorization: null, commit: '--upload-pack=x' }),
      /not a full git object id/,
    );
  });
});

describe('capDiff', () => {
  const file = (name: string, size: number) =>
    `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -0,0 +1 @@\n+${'z'.repeat(size)}\n`;
  test('keeps whole files up to the limit and names the rest', () => {
    const diff = file('a.ts', 100) + file('b.ts', 300) + file('c.ts', 10);
    assert.equal(capDiff(diff, false, 1000), diff);
    const cut = capDiff(diff, false, 300);
    assert.ok(
      cut.startsWith(file('a.ts', 100) + file('c.ts', 10)),
      'a file too big is skipped, later ones fit',
    );
    assert.match(
      cut,
      /\[diff cut at 300 characters: 1 file\(s\) left out: b\.ts\. Read them with the code tools\.\]\n$/,
    );
    const none = capDiff(file('big.ts', 500), false, 300);
    assert.equal(
      none,
      '[diff cut at 300 characters: 1 file(s) left out: big.ts. Read them with the code tools.]\n',
    );
  });
});

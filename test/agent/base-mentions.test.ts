// The words kept per blob that answer "which base pages name this page" (base-mentions.ts): the
// answers follow the base when it moves (a page that starts or stops naming a page is seen at
// once), only new blobs are read, and a large base is read in the background from its
// repository's second job on, git grep answering meanwhile.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { BaseMentions, clearBaseMentions, wordsOf } from '../../src/agent/checks/base-mentions.ts';
import { baseSnapshot } from '../../src/agent/checks/base-snapshot.ts';
import { GitRunner } from '../../src/agent/workspace/git-runner.ts';
import type { JobWorkspace } from '../../src/agent/workspace/job-workspace.ts';
import { Workspaces } from '../../src/agent/workspace/workspaces.ts';
import { commitToBare, type GitHttpServer, startGitHttpServer } from '../stand-ins/git-http-server.ts';

const AUTHORIZATION = `Basic ${Buffer.from('x-access-token:ghs_baseMentionsToken0123456789').toString('base64')}`;
let server: GitHttpServer;
let dir: string;

before(async () => {
  server = await startGitHttpServer({ authorization: AUTHORIZATION });
  dir = await mkdtemp('/dev/shm/docwright-base-mentions-');
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => clearBaseMentions());

test('words: the runs of letters, digits, "_" and "-", each once', () => {
  assert.equal(
    wordsOf(['See [the page](../page-1.md#a_b).', 'page-1 again']),
    '\nSee\nthe\npage\npage-1\nmd\na_b\nagain\n',
  );
  assert.equal(wordsOf(['', '…']), '');
});

test('a moved base answers from its own pages: new blobs are read, kept ones are not', async () => {
  const repo = 'moving';
  const bare = await server.createRepo(repo, {
    'README.md': '# Moving\n',
    'docs/a.md': '# A\n\nSee [the target](target.md).\n',
    'docs/b.md': '# B\n\nNothing here.\n',
    'docs/target.md': '# Target\n',
    'docs/targets.md': '# Targets\n\nNot [it](target-old.md), nor target_2.\n',
  });
  const calls: string[][] = [];
  const spaces = new Workspaces({
    cacheDir: join(dir, 'repos'),
    worktreesDir: join(dir, 'worktrees'),
    runner: new GitRunner({ observe: ({ args }) => calls.push([...args]) }),
  });
  const repository = { url: server.repoUrl(repo), authorization: AUTHORIZATION, secrets: [] };
  const open = (jobId: string) =>
    spaces.open({ repository, jobId, branch: `docwright/${jobId}`, start: { kind: 'new', ref: null } });
  const greps = () => calls.filter((args) => args.includes('grep'));

  const first = await open('job_MentionsOne000001');
  const base = await baseSnapshot(repo, first, undefined);
  assert.deepEqual(await base.pagesMentioning('target'), ['docs/a.md']);
  // A small base's pages are read at once (one git grep printing their lines), then kept.
  assert.equal(greps().length, 1);
  assert.ok(greps()[0]!.includes(''), 'the lines of the pages, not a search');
  assert.deepEqual(await base.pagesMentioning('Nothing'), ['docs/b.md']);
  assert.equal(greps().length, 1, 'answered from the kept words');
  await first.remove();

  // The base moves: a.md stops naming target, b.md starts, a new page names it too.
  await commitToBare(
    bare,
    {
      'docs/a.md': '# A\n\nNothing now.\n',
      'docs/b.md': '# B\n\nThe [target](target.md) is here.\n',
      'docs/c.md': 'Also target.\n',
    },
    'Move the links',
  );
  calls.length = 0;
  const second = await open('job_MentionsTwo000002');
  const moved = await baseSnapshot(repo, second, undefined);
  assert.notEqual(moved, base);
  assert.deepEqual((await moved.pagesMentioning('target')).sort(), ['docs/b.md', 'docs/c.md']);
  // Only the three new blobs were read; the unchanged pages' words were kept.
  assert.equal(greps().length, 1);
  const read = greps()[0]!;
  assert.deepEqual(read.slice(read.indexOf('--') + 1).sort(), ['docs/a.md', 'docs/b.md', 'docs/c.md']);
  await second.remove();
});

/** A workspace that answers from `pages` and counts its git work. */
function fakeWorkspace(pages: Map<string, string>) {
  const texts = new Map(
    [...pages].map(([path]) => [path, `# ${path}\n\nLinks to ${path.replace('.md', '-next')}.\n`]),
  );
  const counts = { grep: 0, lines: 0 };
  const workspace = {
    grepBase: async (text: string) => {
      counts.grep++;
      return [...texts].filter(([, body]) => body.includes(text)).map(([path]) => path);
    },
    baseLines: async (paths: readonly string[], literal: boolean) => {
      counts.lines++;
      const wanted = literal ? paths : [...texts.keys()];
      return new Map(wanted.map((path) => [path, texts.get(path)!.split('\n')]));
    },
  } as unknown as JobWorkspace;
  return { workspace, counts };
}

test('a large base: git grep for its first job, read in the background from its second, then words', async () => {
  const pages = new Map(Array.from({ length: 600 }, (_, i) => [`docs/p${i}.md`, `oid${i}`]));
  const { workspace, counts } = fakeWorkspace(pages);
  const mentions = new BaseMentions('large', pages, () => workspace);
  assert.deepEqual(await mentions.search('p7-next'), ['docs/p7.md']);
  assert.deepEqual(counts, { grep: 1, lines: 0 }, 'a repository with one job never reads its words');
  // The repository's next job (another base object, same blobs): grep now, words read beside it.
  const next = new BaseMentions('large', pages, () => workspace);
  assert.deepEqual(await next.search('p8-next'), ['docs/p8.md']);
  assert.deepEqual(counts, { grep: 2, lines: 1 });
  // Until the words are read, git grep answers; afterwards the words do.
  assert.deepEqual(await next.search('p9-next'), ['docs/p9.md']);
  assert.deepEqual(counts, { grep: 3, lines: 1 });
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await next.search('p9-next'), ['docs/p9.md']);
  assert.deepEqual(await mentions.search('p10-next'), ['docs/p10.md']);
  assert.deepEqual(counts, { grep: 3, lines: 1 }, 'answered from the words');
  // A name without a word is left to git grep.
  assert.deepEqual(await next.search('…'), []);
  assert.equal(counts.grep, 4);
});

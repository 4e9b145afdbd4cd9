// The workspace end to end through real git over HTTP: a git http-backend stand-in that requires
// the token header serves bare repositories; the workspace clones a partial mirror, adds a
// worktree on the job's branch, the agent's tools edit it, and the change is committed and pushed.
// Then the failures a job maps to error codes, and the token's absence from every place it must
// never reach: config files, argv, error messages, events.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createAgentTools } from '../../src/agent/tools/agent-tools.ts';
import type { ToolEvent } from '../../src/agent/tools/tool-context.ts';
import { branchName } from '../../src/agent/workspace/branch-name.ts';
import { WorkspaceFailure } from '../../src/agent/workspace/failures.ts';
import { type GitInvocation, GitRunner, type GitRunOptions } from '../../src/agent/workspace/git-runner.ts';
import { mirrorPathFor } from '../../src/agent/workspace/mirror.ts';
import {
  type RepositoryAccess,
  type WorkspaceStartView,
  Workspaces,
} from '../../src/agent/workspace/workspaces.ts';
import { repositoryPolicy } from '../../src/modules/projects/index.ts';
import { type GitHttpServer, SAMPLE_DOCS, startGitHttpServer } from '../stand-ins/git-http-server.ts';

const run = promisify(execFile);
const CLEAN_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
/** Reads a bare repository of the stand-in directly (not through the workspace). */
async function bareGit(repo: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: repo, env: CLEAN_ENV })).stdout.trim();
}

/** The objects of the host's other branch the mirror does not have ("?<id>" lines): a partial clone's. */
function missingOfOldDocs(mirror: string): Promise<string> {
  return bareGit(mirror, 'rev-list', '--objects', '--missing=print', 'refs/remotes/origin/old-docs');
}

/**
 * What `git status --porcelain` says of a worktree against its HEAD, through an index read from
 * HEAD for the purpose: whichever index the workspace staged in, the files must be HEAD's.
 */
let checkIndexes = 0;
async function differencesFromHead(worktree: string): Promise<string> {
  const env = { ...CLEAN_ENV, GIT_INDEX_FILE: join(base, `check-index-${++checkIndexes}`) };
  try {
    await run('git', ['read-tree', 'HEAD'], { cwd: worktree, env });
    return (await run('git', ['status', '--porcelain'], { cwd: worktree, env })).stdout.trim();
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
  }
}

/** Moves a bare repository's main branch on by one commit with the same files, as a push would. */
async function moveMain(repo: string, message: string): Promise<string> {
  const tip = await bareGit(repo, 'rev-parse', 'refs/heads/main');
  const moved = await bareGit(
    repo,
    '-c',
    'user.name=Someone',
    '-c',
    'user.email=someone@example.com',
    'commit-tree',
    `${tip}^{tree}`,
    '-p',
    tip,
    '-m',
    message,
  );
  await bareGit(repo, 'update-ref', 'refs/heads/main', moved);
  return moved;
}

// GitHub's form: Basic base64("x-access-token:" + token). The scrubber must remove the header,
// its base64 part and the token inside it.
const TOKEN = 'ghs_docwrightTestToken0123456789abcdef';
const AUTHORIZATION = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const READ_ONLY_TOKEN = 'ghs_readOnlyToken9876543210fedcba';
const READ_ONLY = `Basic ${Buffer.from(`x-access-token:${READ_ONLY_TOKEN}`).toString('base64')}`;
const SECRETS = [TOKEN, AUTHORIZATION, AUTHORIZATION.slice('Basic '.length), READ_ONLY_TOKEN, READ_ONLY];
const BOT = { name: 'docwright[bot]', email: 'bot@docwright.test' };

let server: GitHttpServer;
let base: string;
const invocations: GitInvocation[] = [];
const errorMessages: string[] = [];
const events: ToolEvent[] = [];
let jobCounter = 0;

function workspaces(name: string) {
  return new Workspaces({
    cacheDir: join(base, name, 'repos'),
    worktreesDir: join(base, name, 'worktrees'),
    runner: new GitRunner({ observe: (invocation) => invocations.push(invocation) }),
  });
}

const access = (repo: string, authorization: string | null = AUTHORIZATION): RepositoryAccess => ({
  url: server.repoUrl(repo),
  authorization,
  secrets: [TOKEN, READ_ONLY_TOKEN],
  // The stand-in is on loopback, as DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE=true allows.
  policy: repositoryPolicy({ allowPrivateAddresses: true }),
});

function newJob(prompt = 'Fix the install guide') {
  const jobId = `job_Test${String(++jobCounter).padStart(4, '0')}Abcdefgh`;
  return { jobId, branch: branchName(prompt, jobId) };
}

/** Runs `fn`, expecting a WorkspaceFailure; keeps its message for the no-token check. */
async function failure(fn: () => Promise<unknown>): Promise<WorkspaceFailure> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof WorkspaceFailure, `not a WorkspaceFailure: ${String(error)}`);
    errorMessages.push(error.message);
    return error;
  }
  assert.fail('expected a WorkspaceFailure');
}

/** Every file under dir (all of .git included), as text. */
async function allFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (path: string) => {
    const info = await lstat(path);
    if (info.isDirectory()) for (const entry of await readdir(path)) await walk(join(path, entry));
    else if (info.isFile()) files.set(path, await readFile(path, 'latin1'));
  };
  await walk(dir);
  return files;
}

before(async () => {
  server = await startGitHttpServer({ authorization: AUTHORIZATION, readOnlyAuthorization: READ_ONLY });
  base = await mkdtemp('/dev/shm/docwright-workspace-');
  // old-docs: a second branch whose files the first job never checks out, so a partial clone
  // must still be missing their contents.
  await server.createRepo('docs', SAMPLE_DOCS, {
    branches: { 'old-docs': { 'docs/old.md': '# Old page\n' } },
  });
});

after(async () => {
  await server.close();
  await rm(base, { recursive: true, force: true });
});

describe('a job from clone to pushed branch', () => {
  const spaces = () => workspaces('main');

  test('first job: partial mirror, worktree on a new branch, tools edit, commit, push', async () => {
    const { jobId, branch } = newJob();
    const seen = invocations.length;
    const requestsBefore = server.requests.length;
    const workspace = await spaces().open({
      repository: access('docs'),
      jobId,
      branch,
      start: { kind: 'new', ref: null },
    });
    assert.equal(workspace.mirrorCloned, true);
    assert.equal(workspace.branch, branch);
    assert.equal(workspace.path, join(base, 'main', 'worktrees', jobId));
    const mine = invocations.slice(seen).map((i) => i.args.join(' '));
    assert.ok(
      mine.some((args) => /^fetch .*--filter=blob:none/.test(args)),
      mine.join('\n'),
    );
    // Every request of the clone carried the header (none was answered 401).
    assert.ok(server.requests.slice(requestsBefore).every((r) => r.hadAuthorization && r.status === 200));

    // The mirror is a partial clone: the other branch's file contents were never downloaded.
    const mirror = mirrorPathFor(join(base, 'main', 'repos'), server.repoUrl('docs'));
    assert.equal(await bareGit(mirror, 'config', 'remote.origin.promisor'), 'true');
    assert.equal(await bareGit(mirror, 'config', 'remote.origin.partialclonefilter'), 'blob:none');
    const missing = await missingOfOldDocs(mirror);
    assert.match(missing, /^\?[0-9a-f]{40}$/m, 'no blob is missing: the clone was not partial');

    // The worktree is on the job's branch at the default branch's tip.
    const main = await bareGit(server.repoPath('docs'), 'rev-parse', 'refs/heads/main');
    assert.equal(workspace.baseCommit, main);
    assert.equal(await bareGit(workspace.path, 'symbolic-ref', 'HEAD'), `refs/heads/${branch}`);
    assert.equal(await readFile(join(workspace.path, 'AGENTS.md'), 'utf8'), SAMPLE_DOCS['AGENTS.md']);

    const toolbox = await createAgentTools({
      root: workspace.path,
      onEvent: (event) => void events.push(event),
    });
    assert.equal(
      (
        await toolbox.run('edit_file', {
          path: 'docs/guide.md',
          old_text: 'Run the installer.',
          new_text: 'Run `install.sh`.',
        })
      ).ok,
      true,
    );
    assert.equal((await toolbox.run('create_file', { path: 'docs/faq.md', content: '# FAQ\n' })).ok, true);
    assert.equal((await toolbox.run('delete_file', { path: 'docs/index.md' })).ok, true);

    assert.deepEqual(toolbox.changedPaths(), ['docs/faq.md', 'docs/guide.md', 'docs/index.md']);
    const committed = await workspace.commit(BOT, 'Document the install script\n\nAsked for in a job.', {
      paths: toolbox.changedPaths(),
    });
    assert.equal(committed.committed, true);
    const diff = await workspace.diff();
    assert.match(diff, /^-Run the installer\.$/m);
    assert.match(diff, /^\+Run `install\.sh`\.$/m);
    assert.match(diff, /^\+\+\+ b\/docs\/faq\.md$/m);
    assert.match(diff, /^deleted file mode/m);
    assert.equal(await workspace.commitsAhead(), 1);

    await workspace.push();
    const pushed = await bareGit(server.repoPath('docs'), 'rev-parse', `refs/heads/${branch}`);
    assert.equal(committed.committed && committed.commit, pushed);
    const log = await bareGit(
      server.repoPath('docs'),
      'log',
      '-1',
      '--format=%an <%ae>|%cn <%ce>|%s|%P',
      branch,
    );
    assert.equal(
      log,
      `docwright[bot] <bot@docwright.test>|docwright[bot] <bot@docwright.test>|Document the install script|${main}`,
    );
    assert.equal(await bareGit(server.repoPath('docs'), 'show', `${branch}:docs/faq.md`), '# FAQ');
    assert.equal(await bareGit(server.repoPath('docs'), 'rev-parse', 'refs/heads/main'), main, 'main moved');

    await workspace.remove();
    await assert.rejects(lstat(workspace.path), { code: 'ENOENT' });
    assert.ok(
      !(await bareGit(mirror, 'worktree', 'list', '--porcelain')).includes(`worktree ${workspace.path}\n`),
    );
    assert.equal(await bareGit(mirror, 'branch', '--list', branch), '');
  });

  test("first job: the tip's file contents come beside the clone, not from the checkout", async () => {
    await server.createRepo('tip-files', SAMPLE_DOCS, {
      branches: { 'old-docs': { 'docs/old.md': '# Old page\n' } },
    });
    // The host's requests made while `worktree add` runs: a partial clone's checkout fetches the
    // blobs it lacks itself (one more fetch after the clone), which the prefetch makes needless.
    const duringCheckout: string[] = [];
    class Recording extends GitRunner {
      override async run(args: readonly string[], options: GitRunOptions) {
        if (args[0] !== 'worktree') return super.run(args, options);
        const before = server.requests.length;
        try {
          return await super.run(args, options);
        } finally {
          duringCheckout.push(...server.requests.slice(before).map((r) => `${r.method} ${r.path}`));
        }
      }
    }
    const spaces = new Workspaces({
      cacheDir: join(base, 'tip-files', 'repos'),
      worktreesDir: join(base, 'tip-files', 'worktrees'),
      runner: new Recording(),
    });
    const { jobId, branch } = newJob();
    const workspace = await spaces.open({
      repository: access('tip-files'),
      jobId,
      branch,
      start: { kind: 'new', ref: null },
    });
    assert.deepEqual(duringCheckout, [], 'the checkout fetched file contents itself');
    for (const [path, text] of Object.entries(SAMPLE_DOCS))
      assert.equal(await readFile(join(workspace.path, path), 'utf8'), text);
    // Still a partial clone, no shallow one: the other branch's contents are missing, the
    // history is whole, and the prefetch's repository is gone.
    const mirror = mirrorPathFor(join(base, 'tip-files', 'repos'), server.repoUrl('tip-files'));
    assert.equal(await bareGit(mirror, 'rev-parse', '--is-shallow-repository'), 'false');
    const missing = await missingOfOldDocs(mirror);
    assert.match(missing, /^\?[0-9a-f]{40}$/m);
    assert.deepEqual(
      (await readdir(join(base, 'tip-files', 'repos'))).filter((name) => name.includes('.tip-')),
      [],
    );
    // The moved pack is the promisor remote's, as the checkout's own fetch would have left it.
    const packs = await readdir(join(mirror, 'objects', 'pack'));
    assert.equal(packs.filter((name) => name.endsWith('.promisor')).length, 2, packs.join(' '));
    await run('git', ['fsck', '--connectivity-only', '--no-dangling'], { cwd: mirror, env: CLEAN_ENV });
    await workspace.remove();
  });

  test('a fresh checkout: files edited in the same second as it, at the same size, are committed', async () => {
    // Git cannot tell such an edit from the checkout by the file's time and size: the commit
    // must read the file, whichever index it stages in (JobWorkspace #ownIndex).
    const spaces = new Workspaces({
      cacheDir: join(base, 'same-second', 'repos'),
      worktreesDir: join(base, 'same-second', 'worktrees'),
      runner: new GitRunner(),
      idleWorktrees: 0,
    });
    const sameSize = (text: string) => text.replace(/[a-z]/, (c) => (c === 'z' ? 'y' : 'z'));
    const paths = Object.keys(SAMPLE_DOCS).filter((p) => /[a-z]/.test(SAMPLE_DOCS[p]!));
    assert.ok(paths.length >= 2);
    const [announced, unannounced] = paths as [string, string];
    for (const staging of ['named paths', 'everything'] as const) {
      const workspace = await spaces.open({
        repository: access('docs'),
        ...newJob(`Same second ${staging}`),
        start: { kind: 'new', ref: null },
      });
      try {
        const checkedOut = Math.floor((await lstat(join(workspace.path, announced))).mtimeMs / 1000);
        for (const path of [announced, unannounced])
          await writeFile(join(workspace.path, path), sameSize(SAMPLE_DOCS[path]!));
        if (staging === 'named paths') workspace.stageSoon([announced]);
        const edited = Math.floor((await lstat(join(workspace.path, unannounced))).mtimeMs / 1000);
        const made = await workspace.commit(
          BOT,
          'Same second',
          staging === 'named paths' ? { paths: [announced, unannounced] } : {},
        );
        assert.equal(made.committed, true);
        for (const path of [announced, unannounced])
          assert.equal(
            (await run('git', ['show', `HEAD:${path}`], { cwd: workspace.path, env: CLEAN_ENV })).stdout,
            sameSize(SAMPLE_DOCS[path]!),
            `${path} (${staging}; checked out in second ${checkedOut}, edited in ${edited})`,
          );
        assert.equal(await differencesFromHead(workspace.path), '');
      } finally {
        await workspace.remove();
      }
    }
  });

  test('second job reuses the mirror: no fetch while what it needs has not moved, one fetch when it has', async () => {
    const { jobId, branch } = newJob('Add a glossary');
    const seen = invocations.length;
    const asked = server.requests.length;
    const workspace = await spaces().open({
      repository: access('docs'),
      jobId,
      branch,
      start: { kind: 'new', ref: null },
    });
    const mirror = mirrorPathFor(join(base, 'main', 'repos'), server.repoUrl('docs'));
    try {
      assert.equal(workspace.mirrorCloned, false);
      const mine = invocations.slice(seen).map((i) => i.args.join(' '));
      // The host's HEAD is where the mirror has it: one ls-refs request, no git process asks.
      assert.ok(!mine.some((args) => /^(fetch|ls-remote|clone|init) /.test(args)), mine.join('\n'));
      assert.deepEqual(
        server.requests.slice(asked).map((r) => [r.method, r.path, r.hadAuthorization]),
        [['POST', '/docs.git/git-upload-pack', true]],
        'one round trip to the remote',
      );
      assert.equal(
        workspace.baseCommit,
        await bareGit(server.repoPath('docs'), 'rev-parse', 'refs/heads/main'),
      );
      // The first job's branch is on the host, but no part of this job: it was not downloaded.
      assert.match(
        await bareGit(server.repoPath('docs'), 'branch', '--list', 'docwright/fix-the-install-guide-*'),
        /docwright\/fix-the-install-guide-/,
      );
      assert.doesNotMatch(await bareGit(mirror, 'branch', '-r'), /origin\/docwright\/fix-the-install-guide-/);
    } finally {
      await workspace.remove();
    }

    // The default branch moves on the host (same files, a new commit): the next job fetches it.
    const bare = server.repoPath('docs');
    const moved = await moveMain(bare, 'Main moved');
    const seenAgain = invocations.length;
    const next = await spaces().open({
      repository: access('docs'),
      ...newJob('After the move'),
      start: { kind: 'new', ref: null },
    });
    try {
      const mine = invocations.slice(seenAgain).map((i) => i.args.join(' '));
      // No base branch named: the remote's default branch (HEAD), and nothing else.
      assert.deepEqual(
        mine.filter((args) => /^(fetch|ls-remote|clone) /.test(args)),
        ['fetch --quiet --prune --no-tags origin +HEAD:refs/docwright/remote-head'],
      );
      assert.equal(next.baseCommit, moved);
      assert.equal(await bareGit(next.path, 'rev-parse', 'HEAD'), moved);
    } finally {
      await next.remove();
    }

    // The request goes through the address policy: one that refuses the host leaves it to git.
    const seenRefused = invocations.length;
    const refused = await spaces().open({
      repository: { ...access('docs'), policy: repositoryPolicy({ allowPrivateAddresses: false }) },
      ...newJob('Policy'),
      start: { kind: 'new', ref: null },
    });
    try {
      assert.equal(
        invocations.slice(seenRefused).filter((i) => i.args[0] === 'fetch').length,
        1,
        'git fetched',
      );
    } finally {
      await refused.remove();
    }
  });

  test("the start commit's instructions: read with git once, then kept for later jobs on that commit", async () => {
    await server.createRepo('kept-instructions', SAMPLE_DOCS);
    const spaces = workspaces('kept-instructions');
    const readInstructions = async () => {
      const { jobId, branch } = newJob('Read the instructions');
      let view: WorkspaceStartView | null = null;
      const workspace = await spaces.open({
        repository: access('kept-instructions'),
        jobId,
        branch,
        start: { kind: 'new', ref: null },
        onStart: (started) => {
          view = started;
        },
      });
      try {
        const seen = invocations.length;
        const entries = await (view as WorkspaceStartView | null)!.listFiles(
          ['.docwright/AGENTS.md', 'AGENTS.md'],
          1024,
        );
        const texts = await Promise.all(entries.map(async (e) => [e.kind, (await e.read())?.toString()]));
        return { texts, git: invocations.slice(seen).map((i) => i.args.join(' ')) };
      } finally {
        await workspace.remove();
      }
    };
    const first = await readInstructions();
    assert.deepEqual(first.texts, [
      ['missing', undefined],
      ['file', SAMPLE_DOCS['AGENTS.md']],
    ]);
    assert.equal(
      first.git.filter((args) => / (ls-tree|cat-file) /.test(` ${args}`)).length,
      2,
      first.git.join('\n'),
    );
    const later = await readInstructions();
    assert.deepEqual(later.texts, first.texts);
    assert.deepEqual(later.git, [], 'nothing asked of git on the same commit');
  });

  test("a fetch leaves git's automatic maintenance to every tenth fetch of the mirror", async () => {
    await server.createRepo('maintenance', SAMPLE_DOCS);
    const fetches: boolean[] = [];
    class Recording extends GitRunner {
      override run(args: readonly string[], options: GitRunOptions) {
        // The clone's fetch and the tip's prefetch beside it are not the mirror's later fetches.
        if (args[0] === 'fetch' && !args.includes('--filter=blob:none') && !args.includes('--depth=1')) {
          const config = Object.entries(options.env)
            .filter(([name]) => name.startsWith('GIT_CONFIG_KEY_'))
            .map(([name, key]) => `${key}=${options.env[name.replace('KEY', 'VALUE')]}`);
          fetches.push(!config.includes('maintenance.auto=false'));
        }
        return super.run(args, options);
      }
    }
    const spaces = new Workspaces({
      cacheDir: join(base, 'maintenance', 'repos'),
      worktreesDir: join(base, 'maintenance', 'worktrees'),
      runner: new Recording(),
    });
    const bare = server.repoPath('maintenance');
    for (let i = 0; i < 12; i++) {
      // The branch moves before every job, so each later job fetches (an unmoved one is not).
      await moveMain(bare, `Move ${i}`);
      const { jobId, branch } = newJob('Maintenance');
      const workspace = await spaces.open({
        repository: access('maintenance'),
        jobId,
        branch,
        start: { kind: 'new', ref: null },
      });
      await workspace.remove();
    }
    // The first job clones (its fetch keeps maintenance); then the 1st and 11th fetch maintain.
    assert.deepEqual(
      fetches.map((maintains, i) => (maintains ? i : -1)).filter((i) => i >= 0),
      [0, 10],
    );
    assert.equal(fetches.length, 11);
  });

  test('a stale tracking ref that blocks a wanted branch: every branch is fetched, the stale one pruned', async () => {
    await server.createRepo('blocked', undefined, {
      branches: { 'topic/new': { 'docs/topic.md': '# Topic\n' } },
    });
    const spacesNow = workspaces('blocked');
    const warm = await spacesNow.open({
      repository: access('blocked'),
      ...newJob('Warm'),
      start: { kind: 'new', ref: null },
    });
    await warm.remove();
    // As if the host once had a branch "topic", deleted since: git cannot create origin/topic/new
    // next to it, and the pattern for topic/new does not prune it.
    const mirror = mirrorPathFor(join(base, 'blocked', 'repos'), server.repoUrl('blocked'));
    await bareGit(mirror, 'update-ref', '-d', 'refs/remotes/origin/topic/new');
    await bareGit(mirror, 'update-ref', 'refs/remotes/origin/topic', warm.baseCommit);
    const seen = invocations.length;
    const workspace = await spacesNow.open({
      repository: access('blocked'),
      ...newJob('On topic'),
      start: { kind: 'new', ref: 'topic/new' },
    });
    try {
      const fetches = invocations
        .slice(seen)
        .map((i) => i.args.join(' '))
        .filter((args) => args.startsWith('fetch '));
      assert.deepEqual(fetches, [
        'fetch --quiet --prune --no-tags origin +refs/heads/topic/new*:refs/remotes/origin/topic/new*',
        'fetch --quiet --prune --no-tags origin +refs/heads/*:refs/remotes/origin/*',
      ]);
      assert.equal(await readFile(join(workspace.path, 'docs/topic.md'), 'utf8'), '# Topic\n');
      assert.doesNotMatch(await bareGit(mirror, 'branch', '-r'), /origin\/topic$/m);
    } finally {
      await workspace.remove();
    }
  });

  test('staged while the model works: the commit stages only what was not, and exactly what is there', async () => {
    const workspace = await spaces().open({
      repository: access('docs'),
      ...newJob('Stage early'),
      start: { kind: 'new', ref: null },
    });
    try {
      const write = (path: string, text: string) => writeFile(join(workspace.path, path), text);
      await write('early.md', 'one\n');
      workspace.stageSoon(['early.md']);
      await write('early.md', 'two\n');
      workspace.stageSoon(['early.md']);
      await write('created-then-deleted.md', 'gone\n');
      await rm(join(workspace.path, 'created-then-deleted.md'));
      workspace.stageSoon(['created-then-deleted.md']);
      await write('late.md', 'never announced\n');
      await workspace.earlyStaging();
      const seen = invocations.length;
      const made = await workspace.commit(BOT, 'Staged early', {
        paths: ['created-then-deleted.md', 'early.md', 'late.md'],
      });
      assert.equal(made.committed, true);
      assert.equal(await bareGit(workspace.path, 'show', 'HEAD:early.md'), 'two');
      assert.equal(await bareGit(workspace.path, 'show', 'HEAD:late.md'), 'never announced');
      assert.equal(await differencesFromHead(workspace.path), '');
      const adds = invocations
        .slice(seen)
        .map((i) => i.args.join(' '))
        .filter((args) => / add /.test(` ${args} `));
      // The announced paths were staged early (the failed one is left to the commit).
      assert.ok(!adds.some((args) => args.includes('early.md')), adds.join('\n'));
      assert.ok(
        adds.some((args) => args.includes('late.md')),
        adds.join('\n'),
      );

      // Everything announced and staged: the commit is one commit-tree (and the branch's move).
      await write('early.md', 'three\n');
      workspace.stageSoon(['early.md']);
      await workspace.earlyStaging();
      const seenAgain = invocations.length;
      const again = await workspace.commit(BOT, 'Again', { paths: ['early.md'] });
      assert.equal(again.committed, true);
      assert.equal(await bareGit(workspace.path, 'show', 'HEAD:early.md'), 'three');
      assert.deepEqual(
        invocations.slice(seenAgain).map((i) => i.args[0]),
        ['commit-tree', 'update-ref'],
      );
      assert.equal(await bareGit(workspace.path, 'rev-parse', 'HEAD^'), made.committed && made.commit);
    } finally {
      await workspace.remove();
    }
  });

  test('staging only the changed paths: a file created then deleted does not stop the commit', async () => {
    const workspace = await spaces().open({
      repository: access('docs'),
      ...newJob('Ghosts'),
      start: { kind: 'new', ref: null },
    });
    try {
      const toolbox = await createAgentTools({ root: workspace.path });
      await toolbox.run('create_file', { path: 'docs/ghost.md', content: 'boo\n' });
      await toolbox.run('delete_file', { path: 'docs/ghost.md' });
      await toolbox.run('move_file', { from: 'docs/guide.md', to: 'docs/*guide*.md' });
      assert.deepEqual(toolbox.changedPaths(), ['docs/*guide*.md', 'docs/ghost.md', 'docs/guide.md']);
      const result = await workspace.commit(BOT, 'Rename the guide', { paths: toolbox.changedPaths() });
      assert.equal(result.committed, true);
      const names = await bareGit(workspace.path, 'show', '--name-status', '--format=', 'HEAD');
      assert.match(names, /^R100\tdocs\/guide\.md\tdocs\/\*guide\*\.md$/m);
      assert.equal(await differencesFromHead(workspace.path), '');
      // Nothing changed since: an empty list stages nothing and commits nothing.
      assert.deepEqual(await workspace.commit(BOT, 'again', { paths: [] }), { committed: false });
    } finally {
      await workspace.remove();
    }
  });

  test('a kept worktree is reused exactly as a fresh one would be; the pool keeps at most two', async () => {
    await server.createRepo('reuse');
    const spacesNow = workspaces('reuse');
    const idleDir = join(base, 'reuse', 'worktrees', '.idle');
    const first = await spacesNow.open({
      repository: access('reuse'),
      ...newJob('First'),
      start: { kind: 'new', ref: null },
    });
    // The first job leaves everything a job can leave: a commit, an uncommitted edit, an
    // untracked file, an ignored one, a deletion.
    await writeFile(join(first.path, 'committed.md'), 'committed\n');
    await first.commit(BOT, 'committed');
    await writeFile(join(first.path, 'README.md'), 'edited, never committed\n');
    await writeFile(join(first.path, 'untracked.md'), 'untracked\n');
    await writeFile(join(first.path, '.gitignore'), '*.tmp\n');
    await writeFile(join(first.path, 'scratch.tmp'), 'ignored\n');
    await rm(join(first.path, 'docs/index.md'));
    await first.remove();
    assert.equal((await readdir(idleDir)).length, 1);

    const seen = invocations.length;
    const job = newJob('Second');
    const second = await spacesNow.open({
      repository: access('reuse'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    try {
      const mine = invocations.slice(seen).map((i) => i.args.slice(0, 2).join(' '));
      assert.ok(mine.includes('worktree move') && !mine.includes('worktree add'), mine.join('\n'));
      // Kept at the commit the first job started from, which is this job's start too: only the
      // branch is set, nothing is checked out; HEAD is pointed at it without starting git.
      assert.ok(!mine.some((args) => args.startsWith('checkout')), mine.join('\n'));
      assert.ok(!mine.some((args) => args.startsWith('symbolic-ref')), mine.join('\n'));
      // The branch is written as a loose ref, as update-ref writes it, without starting git.
      assert.ok(!mine.some((args) => args.startsWith('update-ref')), mine.join('\n'));
      const mirror = mirrorPathFor(join(base, 'reuse', 'repos'), server.repoUrl('reuse'));
      assert.equal(
        await readFile(join(mirror, 'refs', 'heads', job.branch), 'utf8'),
        `${second.baseCommit}\n`,
      );
      assert.equal(
        await bareGit(mirror, 'rev-parse', '--verify', `refs/heads/${job.branch}`),
        second.baseCommit,
      );
      assert.deepEqual(await readdir(idleDir), []);
      assert.equal(await bareGit(second.path, 'symbolic-ref', 'HEAD'), `refs/heads/${job.branch}`);
      assert.equal(await bareGit(second.path, 'rev-parse', 'HEAD'), second.baseCommit);
      assert.equal(await bareGit(second.path, 'status', '--porcelain', '--ignored'), '');
      const onDisk = (await allFiles(second.path)).size - (await allFiles(join(second.path, '.git'))).size;
      assert.equal(onDisk, Object.keys(SAMPLE_DOCS).length, 'files beyond the commit are left');
      assert.equal(await readFile(join(second.path, 'README.md'), 'utf8'), SAMPLE_DOCS['README.md']);
      assert.equal(await readFile(join(second.path, 'docs/index.md'), 'utf8'), SAMPLE_DOCS['docs/index.md']);
      await writeFile(join(second.path, 'second.md'), 'second\n');
      const committed = await second.commit(BOT, 'second');
      await second.push();
      const files = await bareGit(server.repoPath('reuse'), 'ls-tree', '-r', '--name-only', job.branch);
      assert.deepEqual(files.split('\n').sort(), [...Object.keys(SAMPLE_DOCS), 'second.md'].sort());
      assert.equal(committed.committed, true);
    } finally {
      await second.remove();
    }

    // The base branch moved while the worktree was kept: it is checked out at the new commit,
    // and is then as exact as before.
    const bare = server.repoPath('reuse');
    const moved = await moveMain(bare, 'Base moved');
    const beforeThird = invocations.length;
    const third = await spacesNow.open({
      repository: access('reuse'),
      ...newJob('Third'),
      start: { kind: 'new', ref: null },
    });
    try {
      const mine = invocations.slice(beforeThird).map((i) => i.args.slice(0, 2).join(' '));
      assert.ok(mine.includes('worktree move') && mine.includes('checkout --quiet'), mine.join('\n'));
      assert.equal(third.baseCommit, moved);
      assert.equal(await bareGit(third.path, 'rev-parse', 'HEAD'), moved);
      assert.equal(await bareGit(third.path, 'status', '--porcelain', '--ignored'), '');
      await assert.rejects(lstat(join(third.path, 'second.md')), { code: 'ENOENT' });
    } finally {
      await third.remove();
    }

    const three = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        spacesNow.open({ repository: access('reuse'), ...newJob(name), start: { kind: 'new', ref: null } }),
      ),
    );
    for (const workspace of three) await workspace.remove();
    assert.equal((await readdir(idleDir)).length, 2);
    const off = new Workspaces({
      cacheDir: join(base, 'reuse-off', 'repos'),
      worktreesDir: join(base, 'reuse-off', 'worktrees'),
      idleWorktrees: 0,
    });
    const once = await off.open({
      repository: access('reuse'),
      ...newJob('Off'),
      start: { kind: 'new', ref: null },
    });
    await once.remove();
    await assert.rejects(readdir(join(base, 'reuse-off', 'worktrees', '.idle')), { code: 'ENOENT' });
  });

  test("the default branch is the remote's HEAD, whatever its name, and follows a rename", async () => {
    await server.createRepo('trunk', SAMPLE_DOCS, {
      defaultBranch: 'trunk',
      branches: { main: { 'docs/not-default.md': 'on main\n' } },
    });
    const spacesNow = workspaces('trunk');
    const trunk = await bareGit(server.repoPath('trunk'), 'rev-parse', 'refs/heads/trunk');
    const main = await bareGit(server.repoPath('trunk'), 'rev-parse', 'refs/heads/main');
    const first = await spacesNow.open({
      repository: access('trunk'),
      ...newJob('T1'),
      start: { kind: 'new', ref: null },
    });
    assert.equal(first.baseCommit, trunk);
    await first.remove();
    await bareGit(server.repoPath('trunk'), 'symbolic-ref', 'HEAD', 'refs/heads/main');
    const second = await spacesNow.open({
      repository: access('trunk'),
      ...newJob('T2'),
      start: { kind: 'new', ref: null },
    });
    try {
      assert.equal(second.baseCommit, main);
      assert.equal(await readFile(join(second.path, 'docs/not-default.md'), 'utf8'), 'on main\n');
    } finally {
      await second.remove();
    }
  });

  test('nothing changed: no commit, and the result says so', async () => {
    const { jobId, branch } = newJob('Only look around');
    const workspace = await spaces().open({
      repository: access('docs'),
      jobId,
      branch,
      start: { kind: 'new', ref: null },
    });
    try {
      assert.deepEqual(await workspace.commit(BOT, 'Nothing'), { committed: false });
      assert.equal(await bareGit(workspace.path, 'rev-parse', 'HEAD'), workspace.baseCommit);
      assert.equal(await workspace.commitsAhead(), 0);
      assert.equal(await workspace.diff(), '');
    } finally {
      await workspace.remove();
    }
  });

  test('a follow-up continues the pushed branch and pushes on top of it', async () => {
    const { jobId, branch } = newJob('Write the changelog');
    const spacesNow = spaces();
    const first = await spacesNow.open({
      repository: access('docs'),
      jobId,
      branch,
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(first.path, 'CHANGELOG.md'), '# Changes\n');
    const one = await first.commit(BOT, 'Start a changelog');
    await first.push();
    await first.remove();

    const again = await spacesNow.open({
      repository: access('docs'),
      jobId,
      branch,
      start: { kind: 'continue', baseRef: null },
    });
    try {
      assert.equal(await bareGit(again.path, 'rev-parse', 'HEAD'), one.committed && one.commit);
      assert.equal(again.baseCommit, await bareGit(server.repoPath('docs'), 'rev-parse', 'refs/heads/main'));
      await writeFile(join(again.path, 'CHANGELOG.md'), '# Changes\n\n- First entry\n');
      const two = await again.commit(BOT, 'Add the first entry');
      await again.push();
      assert.equal(
        await bareGit(server.repoPath('docs'), 'rev-parse', `refs/heads/${branch}`),
        two.committed && two.commit,
      );
      assert.equal(await again.commitsAhead(), 2);
      const diff = await again.diff();
      assert.match(diff, /^\+- First entry$/m);
      assert.match(diff, /^new file mode/m, 'the diff is against the base, not the previous commit');
    } finally {
      await again.remove();
    }
    const missing = newJob('Never pushed');
    const notThere = await failure(() =>
      spacesNow.open({ repository: access('docs'), ...missing, start: { kind: 'continue', baseRef: null } }),
    );
    assert.equal(notThere.kind, 'ref_not_found');
    assert.equal(notThere.code, 'repository_unavailable');
  });

  test('a new branch pushed by its commit id: one pack, one request, no git push', async () => {
    const spacesNow = spaces();
    const job = newJob('Pushed by one request');
    const workspace = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    try {
      await writeFile(join(workspace.path, 'docs', 'request.md'), '# Pushed by one request\n');
      await writeFile(join(workspace.path, 'README.md'), '# Sample docs\n\nEdited.\n');
      const made = await workspace.commit(BOT, 'Push by one request');
      assert.ok(made.committed);
      const seen = invocations.length;
      const requestsBefore = server.requests.length;
      await workspace.push(made.commit);
      const repo = server.repoPath('docs');
      assert.equal(await bareGit(repo, 'rev-parse', `refs/heads/${job.branch}`), made.commit);
      assert.equal(await bareGit(repo, 'show', `${job.branch}:docs/request.md`), '# Pushed by one request');
      assert.equal(await bareGit(repo, 'show', `${job.branch}:README.md`), '# Sample docs\n\nEdited.');
      // The host has every object the branch needs (its connectivity check passed, and fsck agrees).
      await bareGit(repo, 'fsck', '--no-dangling', '--connectivity-only');
      assert.deepEqual(
        server.requests
          .slice(requestsBefore)
          .map((r) => `${r.method} ${r.service} ${r.status} ${r.hadAuthorization}`),
        ['POST git-receive-pack 200 true'],
      );
      const mine = invocations.slice(seen).map((i) => i.args.join(' '));
      assert.deepEqual(mine, ['pack-objects --stdout --revs --quiet']);
      // A push whose answer was lost and is made again: the request is refused (the branch exists
      // now), and git push finds the branch at the commit already.
      await workspace.push(made.commit);
      assert.equal(await bareGit(repo, 'rev-parse', `refs/heads/${job.branch}`), made.commit);
      assert.deepEqual(
        invocations.slice(seen + 1).map((i) => i.args[0]),
        ['pack-objects', 'push'],
      );
    } finally {
      await workspace.remove();
    }
  });

  test('starts from a named branch or a commit; an unknown ref is repository_unavailable', async () => {
    const spacesNow = spaces();
    const old = await spacesNow.open({
      repository: access('docs'),
      ...newJob('On old docs'),
      start: { kind: 'new', ref: 'old-docs' },
    });
    try {
      assert.equal(await readFile(join(old.path, 'docs/old.md'), 'utf8'), '# Old page\n');
      assert.equal(
        old.baseCommit,
        await bareGit(server.repoPath('docs'), 'rev-parse', 'refs/heads/old-docs'),
      );
    } finally {
      await old.remove();
    }
    const first = await bareGit(server.repoPath('docs'), 'rev-list', '--max-parents=0', 'main');
    const atCommit = await spacesNow.open({
      repository: access('docs'),
      ...newJob('At a commit'),
      start: { kind: 'new', ref: first },
    });
    try {
      assert.equal(await bareGit(atCommit.path, 'rev-parse', 'HEAD'), first);
    } finally {
      await atCommit.remove();
    }
    const unknown = await failure(() =>
      spacesNow.open({
        repository: access('docs'),
        ...newJob('Nowhere'),
        start: { kind: 'new', ref: 'no-such-branch' },
      }),
    );
    assert.equal(unknown.kind, 'ref_not_found');
    assert.match(unknown.message, /The ref "no-such-branch" was not found/);
    const invalid = await failure(() =>
      spacesNow.open({
        repository: access('docs'),
        ...newJob('Option'),
        start: { kind: 'new', ref: '--upload-pack=touch /tmp/x' },
      }),
    );
    assert.match(invalid.message, /is not a valid git ref name/);
  });

  test('a cancelled job stops before touching the mirror', async () => {
    const controller = new AbortController();
    controller.abort();
    const seen = invocations.length;
    await assert.rejects(
      spaces().open({
        repository: access('docs'),
        ...newJob('Cancelled'),
        start: { kind: 'new', ref: null },
        signal: controller.signal,
      }),
      { name: 'AbortError' },
    );
    assert.equal(invocations.length, seen);
  });

  test('a worktree left by a dead attempt of the same job is replaced', async () => {
    const job = newJob('Retry me');
    const spacesNow = spaces();
    const first = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(first.path, 'half-done.md'), 'from the attempt that died\n');
    // No remove(): the worker died. The retry opens the same job again.
    const retry = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    try {
      await assert.rejects(lstat(join(retry.path, 'half-done.md')), { code: 'ENOENT' });
      assert.equal(await bareGit(retry.path, 'rev-parse', 'HEAD'), retry.baseCommit);
    } finally {
      await retry.remove();
    }
  });

  test('a late removal of an earlier run leaves alone the worktree a later run of the job put there', async () => {
    // The outcome is recorded before the worktree is removed, so a follow-up of the job may be
    // taken (by another process sharing the data directory) before the earlier run's removal.
    const job = newJob('Follow me up');
    const spacesNow = spaces();
    const earlier = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    const later = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    try {
      assert.equal(later.path, earlier.path);
      await writeFile(join(later.path, 'follow-up.md'), 'the later run is working here\n');
      await earlier.remove();
      assert.equal(
        await readFile(join(later.path, 'follow-up.md'), 'utf8'),
        'the later run is working here\n',
      );
      assert.equal(await bareGit(later.path, 'symbolic-ref', 'HEAD'), `refs/heads/${job.branch}`);
      await later.commit(BOT, 'Follow-up');
      await later.push();
      assert.equal(
        await bareGit(server.repoPath('docs'), 'show', `${job.branch}:follow-up.md`),
        'the later run is working here',
      );
    } finally {
      await later.remove();
    }
    await assert.rejects(lstat(later.path), { code: 'ENOENT' }, 'the later run removes its own worktree');
  });

  test('two jobs on a new repository at once: one clone, both worktrees work', async () => {
    await server.createRepo('parallel');
    const spacesNow = workspaces('parallel');
    const seen = invocations.length;
    const [a, b] = await Promise.all([
      spacesNow.open({ repository: access('parallel'), ...newJob('One'), start: { kind: 'new', ref: null } }),
      spacesNow.open({ repository: access('parallel'), ...newJob('Two'), start: { kind: 'new', ref: null } }),
    ]);
    try {
      assert.deepEqual([a!.mirrorCloned, b!.mirrorCloned].sort(), [false, true]);
      const clones = invocations
        .slice(seen)
        .filter((i) => i.args[0] === 'fetch' && i.args.includes('--filter=blob:none'));
      assert.equal(clones.length, 1);
      for (const [workspace, name] of [
        [a!, 'one.md'],
        [b!, 'two.md'],
      ] as const) {
        await writeFile(join(workspace.path, name), `# ${name}\n`);
        await workspace.commit(BOT, `Add ${name}`);
      }
      await Promise.all([a!.push(), b!.push()]);
      assert.equal(await bareGit(server.repoPath('parallel'), 'show', `${a!.branch}:one.md`), '# one.md');
      assert.equal(await bareGit(server.repoPath('parallel'), 'show', `${b!.branch}:two.md`), '# two.md');
      const mirror = mirrorPathFor(join(base, 'parallel', 'repos'), server.repoUrl('parallel'));
      await bareGit(mirror, 'fsck', '--connectivity-only');
    } finally {
      await Promise.all([a!.remove(), b!.remove()]);
    }
  });

  test('hooks never run: not from the mirror, not on checkout, commit or push', async () => {
    const spacesNow = workspaces('hooks');
    const job = newJob('Hooks');
    const warmup = await spacesNow.open({
      repository: access('docs'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    await warmup.remove();
    const mirror = mirrorPathFor(join(base, 'hooks', 'repos'), server.repoUrl('docs'));
    const marker = join(base, 'hook-ran');
    for (const hook of [
      'post-checkout',
      'pre-commit',
      'commit-msg',
      'post-commit',
      'pre-push',
      'reference-transaction',
    ]) {
      await writeFile(join(mirror, 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`);
      await chmod(join(mirror, 'hooks', hook), 0o755);
    }
    const workspace = await spacesNow.open({
      repository: access('docs'),
      ...newJob('Hooks again'),
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(workspace.path, 'x.md'), 'x\n');
    await workspace.commit(BOT, 'x');
    await workspace.push();
    await workspace.remove();
    await assert.rejects(lstat(marker), { code: 'ENOENT' }, 'a hook ran');
  });
});

describe('failures a job maps to error codes', () => {
  test('a wrong or missing token is code_host_auth', async () => {
    const spacesNow = workspaces('auth');
    for (const authorization of [
      `Basic ${Buffer.from('x-access-token:ghs_wrongTokenAbcdef123456').toString('base64')}`,
      null,
    ]) {
      const refused = await failure(() =>
        spacesNow.open({
          repository: access('docs', authorization),
          ...newJob(),
          start: { kind: 'new', ref: null },
        }),
      );
      assert.equal(refused.code, 'code_host_auth');
      assert.equal(refused.kind, 'auth');
      assert.match(refused.message, /^The code host refused the token \(cloning the repository\)/);
    }
    // The failed clone left no half mirror behind.
    const left = await readdir(join(base, 'auth', 'repos'));
    assert.deepEqual(
      left.filter((name) => !name.endsWith('.lock')),
      [],
    );
    // On a cached mirror whose branch has not moved, the token is still checked: the host refuses
    // the ls-refs request, and git's fetch then reports the refusal as before.
    const cached = await spacesNow.open({
      repository: access('docs'),
      ...newJob(),
      start: { kind: 'new', ref: null },
    });
    await cached.remove();
    for (const authorization of [
      `Basic ${Buffer.from('x-access-token:ghs_wrongTokenAbcdef123456').toString('base64')}`,
      null,
    ]) {
      const refused = await failure(() =>
        spacesNow.open({
          repository: access('docs', authorization),
          ...newJob(),
          start: { kind: 'new', ref: null },
        }),
      );
      assert.equal(refused.code, 'code_host_auth');
      assert.match(refused.message, /^The code host refused the token \(fetching the repository\)/);
    }
  });

  test('a token that may read but not write: the push is code_host_auth; the server text is scrubbed', async () => {
    const reflecting = await startGitHttpServer({
      authorization: AUTHORIZATION,
      readOnlyAuthorization: READ_ONLY,
      reflectAuthorization: true,
    });
    try {
      await reflecting.createRepo('docs');
      const spacesNow = workspaces('read-only');
      const workspace = await spacesNow.open({
        repository: { url: reflecting.repoUrl('docs'), authorization: READ_ONLY, secrets: [READ_ONLY_TOKEN] },
        ...newJob('Read only'),
        start: { kind: 'new', ref: null },
      });
      await writeFile(join(workspace.path, 'x.md'), 'x\n');
      await workspace.commit(BOT, 'x');
      const refused = await failure(() => workspace.push());
      assert.equal(refused.code, 'code_host_auth');
      assert.match(refused.message, /returned error: 403/);
      // The server put the header in its answer; the message keeps the sentence, not the secret.
      assert.match(
        refused.message,
        /Write access to this repository is not granted to the holder of "\[redacted\]"/,
      );
      await workspace.remove();
    } finally {
      await reflecting.close();
    }
  });

  test('a protected branch and a branch that moved meanwhile are push_rejected', async () => {
    await server.createRepo('protected');
    const spacesNow = workspaces('protected');
    const job = newJob('Protected');
    await server.protectBranch('protected', job.branch);
    const workspace = await spacesNow.open({
      repository: access('protected'),
      ...job,
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(workspace.path, 'x.md'), 'x\n');
    await workspace.commit(BOT, 'x');
    const rejected = await failure(() => workspace.push());
    assert.equal(rejected.code, 'push_rejected');
    assert.match(rejected.message, /^The code host rejected the push \(pushing the branch\)/);
    assert.match(rejected.message, /\[remote rejected\].*pre-receive hook declined/);
    await workspace.remove();

    // Someone else pushed to the job's branch: no force, the push is refused.
    const moved = newJob('Moved');
    const theirs = await spacesNow.open({
      repository: access('protected'),
      ...moved,
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(theirs.path, 'theirs.md'), 'theirs\n');
    await theirs.commit(BOT, 'theirs');
    await theirs.push();
    await theirs.remove();
    const ours = await spacesNow.open({
      repository: access('protected'),
      ...moved,
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(ours.path, 'ours.md'), 'ours\n');
    await ours.commit(BOT, 'ours');
    const nonFastForward = await failure(() => ours.push());
    assert.equal(nonFastForward.code, 'push_rejected');
    assert.match(nonFastForward.message, /non-fast-forward|fetch first/);
    await ours.remove();
  });

  test('pushed by one request: a refused token and a refused ref fail as git push fails', async () => {
    // Read-only token: the request gets 403, and git push then reports it as before.
    await server.createRepo('by-request');
    const spacesNow = workspaces('by-request');
    // A new job's workspace on the repository with one file written and committed.
    const committedOne = async (
      job: ReturnType<typeof newJob>,
      file: string,
      authorization = AUTHORIZATION,
    ) => {
      const workspace = await spacesNow.open({
        repository: access('by-request', authorization),
        ...job,
        start: { kind: 'new', ref: null },
      });
      await writeFile(join(workspace.path, file), `${file}\n`);
      const made = await workspace.commit(BOT, file);
      assert.ok(made.committed);
      return { workspace, commit: made.commit };
    };
    const { workspace: reader, commit: readerCommit } = await committedOne(
      newJob('Read only by request'),
      'x.md',
      READ_ONLY,
    );
    let requestsBefore = server.requests.length;
    const refused = await failure(() => reader.push(readerCommit));
    assert.equal(refused.code, 'code_host_auth');
    assert.match(
      refused.message,
      /^The code host refused the token \(pushing the branch\).*returned error: 403/,
    );
    assert.deepEqual(
      server.requests
        .slice(requestsBefore, requestsBefore + 2)
        .map((r) => `${r.method} ${r.service} ${r.status}`),
      ['POST git-receive-pack 403', 'GET git-receive-pack 403'],
    );
    await reader.remove();

    // A protected branch: the host answers "ng"; the failure is git push's.
    const job = newJob('Protected by request');
    await server.protectBranch('by-request', job.branch);
    const { workspace, commit: made } = await committedOne(job, 'x.md');
    requestsBefore = server.requests.length;
    const rejected = await failure(() => workspace.push(made));
    assert.equal(rejected.code, 'push_rejected');
    assert.match(rejected.message, /^The code host rejected the push \(pushing the branch\)/);
    assert.match(rejected.message, /\[remote rejected\].*pre-receive hook declined/);
    assert.equal(server.requests[requestsBefore]?.method, 'POST', 'the push by request was not tried');
    assert.equal(await bareGit(server.repoPath('by-request'), 'branch', '--list', job.branch), '');
    await workspace.remove();

    // The job's branch is on the host already, at another commit: the request (for a new branch)
    // is refused, and git push says the branch moved, as it would have.
    const moved = newJob('Moved by request');
    const { workspace: theirs, commit: theirCommit } = await committedOne(moved, 'theirs.md');
    await theirs.push(theirCommit);
    await theirs.remove();
    const { workspace: ours, commit: ourCommit } = await committedOne(moved, 'ours.md');
    requestsBefore = server.requests.length;
    const nonFastForward = await failure(() => ours.push(ourCommit));
    assert.equal(nonFastForward.code, 'push_rejected');
    assert.match(nonFastForward.message, /non-fast-forward|fetch first/);
    assert.equal(server.requests[requestsBefore]?.method, 'POST', 'the push by request was not tried');
    assert.equal(
      await bareGit(server.repoPath('by-request'), 'rev-parse', `refs/heads/${moved.branch}`),
      theirCommit,
    );
    await ours.remove();
  });

  test('a missing repository, an unreachable host and an unusable URL are repository_unavailable', async () => {
    const spacesNow = workspaces('unavailable');
    const notFound = await failure(() =>
      spacesNow.open({ repository: access('no-such-repo'), ...newJob(), start: { kind: 'new', ref: null } }),
    );
    assert.deepEqual([notFound.kind, notFound.code], ['not_found', 'repository_unavailable']);
    assert.match(notFound.message, /^The repository was not found/);
    const unreachable = await failure(() =>
      spacesNow.open({
        repository: { url: 'http://127.0.0.1:9/docs.git', authorization: AUTHORIZATION },
        ...newJob(),
        start: { kind: 'new', ref: null },
      }),
    );
    assert.deepEqual([unreachable.kind, unreachable.code], ['network', 'repository_unavailable']);
    assert.match(unreachable.message, /^The code host could not be reached/);
    const seen = invocations.length;
    for (const url of [
      'ext::sh -c touch% /tmp/pwned',
      'file:///etc',
      `https://x-access-token:${TOKEN}@github.example/docs.git`,
      'not a url',
    ]) {
      const refused = await failure(() =>
        spacesNow.open({
          repository: { url, authorization: AUTHORIZATION },
          ...newJob(),
          start: { kind: 'new', ref: null },
        }),
      );
      assert.deepEqual([refused.kind, refused.code], ['invalid_repository_url', 'repository_unavailable']);
    }
    assert.equal(invocations.length, seen, 'git ran for a refused URL');
  });
});

describe('the token appears nowhere but in the environment of git processes', () => {
  test('not in any file of the mirrors and worktrees, argv, error messages or events', async () => {
    // A workspace left open, so its worktree files are part of the scan.
    const open = await workspaces('main').open({
      repository: access('docs'),
      ...newJob('Left open'),
      start: { kind: 'new', ref: null },
    });
    await writeFile(join(open.path, 'x.md'), 'x\n');
    await open.commit(BOT, 'x');
    try {
      assert.ok(errorMessages.length >= 8, 'the failure tests ran first');
      const places: Array<[string, string]> = [];
      for (const [path, text] of await allFiles(base)) places.push([path, text]);
      for (const invocation of invocations)
        places.push([`argv ${invocation.args.join(' ')}`, invocation.args.join('\0')]);
      for (const message of errorMessages) places.push([`error ${message}`, message]);
      for (const event of events) places.push([`event ${JSON.stringify(event)}`, JSON.stringify(event)]);
      assert.ok(places.length > 100);
      for (const [where, text] of places)
        for (const secret of SECRETS)
          assert.ok(!text.includes(secret), `the token leaked into ${where.slice(0, 200)}`);
      const config = await readFile(
        join(mirrorPathFor(join(base, 'main', 'repos'), server.repoUrl('docs')), 'config'),
        'utf8',
      );
      assert.doesNotMatch(config, /extraheader|authorization/i);
    } finally {
      await open.remove();
    }
  });
});

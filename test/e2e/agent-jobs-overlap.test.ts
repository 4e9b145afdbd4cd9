// End to end on Gitea (the lightest host stand): on a cached mirror the model starts while the
// worktree is still being prepared. The repository's instructions then come from the mirror at the
// freshly fetched start commit, under the same rules as the tools' reads; a worktree that cannot
// be made fails the job with the workspace's code and aborts the model call in flight.
//
// Ordering is shown without timing: a gated git runner holds the worktree's preparation back until
// the model's first request has arrived (or a generous deadline passed, which the test then
// reports as a failure: the model waited for the worktree).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { promisify } from 'node:util';
import { type GitResult, GitRunner, type GitRunOptions } from '../../src/agent/workspace/git-runner.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, REPOSITORY, startAgentHarness } from './agent-harness.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';

const run = promisify(execFile);
const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Docs team',
  GIT_AUTHOR_EMAIL: 'docs@example.test',
  GIT_COMMITTER_NAME: 'Docs team',
  GIT_COMMITTER_EMAIL: 'docs@example.test',
};

/** Holds back the commands that prepare a job's worktree while a gate is set. */
class GatedGitRunner extends GitRunner {
  gate: Promise<void> | null = null;
  /** Called once a held command may go on (e.g. to break the repository first). */
  beforeRelease: (() => Promise<void>) | null = null;
  override async run(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
    const preparesWorktree =
      args.includes('checkout') ||
      (args.includes('worktree') && (args.includes('add') || args.includes('move')));
    if (preparesWorktree && this.gate !== null) await this.gate;
    return super.run(args, options);
  }
}

/** Commits `files` (null deletes) to main of the stand-in's bare repository. */
async function commitToMain(bare: string, files: Record<string, string | Buffer | null>, symlinks = {}) {
  const work = await mkdtemp('/dev/shm/docwright-overlap-seed-');
  try {
    await run('git', ['clone', '--quiet', bare, work], { env: GIT_ENV });
    for (const [path, content] of Object.entries(files)) {
      // Removed first: writing through a symlink the repository holds would change its target.
      await rm(join(work, path), { force: true });
      if (content !== null) {
        await run('mkdir', ['-p', join(work, path, '..')]);
        await writeFile(join(work, path), content);
      }
    }
    for (const [path, target] of Object.entries(symlinks as Record<string, string>)) {
      await rm(join(work, path), { force: true });
      await run('mkdir', ['-p', join(work, path, '..')]);
      await run('ln', ['-s', target, join(work, path)]);
    }
    await run('git', ['add', '--all'], { cwd: work, env: GIT_ENV });
    await run('git', ['commit', '--quiet', '--allow-empty', '-m', 'Change for a test'], {
      cwd: work,
      env: GIT_ENV,
    });
    await run('git', ['push', '--quiet', 'origin', 'HEAD:main'], { cwd: work, env: GIT_ENV });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await forEachBackend('agent jobs: the model starts while the worktree is prepared', ({ db }) => {
  let h: AgentHarness;
  const runner = new GatedGitRunner();
  let bare: string;

  /**
   * Holds the worktree's preparation until the model's next request arrives; resolves to what
   * released it. The deadline only keeps a wrong implementation (model after worktree) from hanging.
   */
  function holdWorktreeUntilModelAsks(): Promise<'model request' | 'deadline'> {
    const requestsBefore = h.llm.requests.length;
    let released: (value: 'model request' | 'deadline') => void = () => {};
    const why = new Promise<'model request' | 'deadline'>((resolve) => {
      released = resolve;
    });
    const deadline = setTimeout(() => released('deadline'), 15_000);
    void h.llm.waitForRequests(requestsBefore + 1).then(() => released('model request'));
    runner.gate = why.then(async () => {
      clearTimeout(deadline);
      await runner.beforeRelease?.();
    });
    return why;
  }

  async function runFinishOnlyJob(prompt: string) {
    h.llm.enqueue(reply.toolCall('finish', { title: 'Nothing to do', summary: 'Nothing needed changing.' }));
    const created = await h.createJob(prompt);
    return h.waitForJob(created.id);
  }

  before(async () => {
    h = await startAgentHarness(db(), { kind: 'gitea', gitRunner: runner });
    bare = h.git.repoPath(REPOSITORY);
    // The first job clones the mirror (and reads AGENTS.md from its worktree, as before).
    const first = await runFinishOnlyJob('Warm the mirror');
    assert.equal(first.status, 'completed');
    assert.match(h.llm.requests.at(-1)!.system, /Write in plain English/);
  });
  afterEach(async () => {
    runner.gate = null;
    runner.beforeRelease = null;
    await h.setSettings({ deniedPaths: null });
  });
  after(() => h.close());

  test('the first model request comes before the worktree, with AGENTS.md as the fetch brought it', {
    timeout: 60_000,
  }, async () => {
    const marker = `Marker ${randomBytes(6).toString('hex')}`;
    await commitToMain(bare, { 'AGENTS.md': `# Instructions\n\n- ${marker}\n` });
    const requestsBefore = h.llm.requests.length;
    const released = holdWorktreeUntilModelAsks();
    scriptDocsEdit(h.llm);
    const created = await h.createJob('Document the yes flag');
    const job = await h.waitForJob(created.id);

    assert.equal(await released, 'model request', 'the model was asked only after the worktree was ready');
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.ok(job.prLink);
    const first = h.llm.requests[requestsBefore]!;
    assert.match(first.system, new RegExp(marker), 'AGENTS.md is the one on main after the fetch');
    // The tools waited for the worktree: the edit reached the pushed branch.
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes/);
    const types = (await h.events(created.id)).map((e) => e.type);
    assert.ok(types.indexOf('workspace') < types.indexOf('tool_call'), types.join(','));
  });

  test('AGENTS.md from the mirror: the tools’ refusals apply (deny list, binary, too large, symlink out)', {
    timeout: 90_000,
  }, async () => {
    const text = '# For agents\n\n- Use the house style.\n';
    const cases: {
      name: string;
      files: Record<string, string | Buffer | null>;
      symlinks?: Record<string, string>;
      denied?: string[];
      expect: RegExp | null;
      /** A symlink needs the worktree to be judged: the model then waits for it. */
      fromMirror: boolean;
    }[] = [
      {
        name: '.docwright/AGENTS.md wins over AGENTS.md',
        files: { '.docwright/AGENTS.md': '# Docwright only\n\n- Prefer short pages.\n', 'AGENTS.md': text },
        expect: /from \.docwright\/AGENTS\.md\)[\s\S]*Prefer short pages/,
        fromMirror: true,
      },
      {
        name: 'a binary .docwright/AGENTS.md is passed over',
        files: { '.docwright/AGENTS.md': Buffer.from([0x23, 0x00, 0x01, 0x02, 0x0a]), 'AGENTS.md': text },
        expect: /from AGENTS\.md\)[\s\S]*house style/,
        fromMirror: true,
      },
      {
        name: 'a .docwright/AGENTS.md over 1 MiB is passed over',
        files: { '.docwright/AGENTS.md': `${'x'.repeat(1024 * 1024 + 10)}\n`, 'AGENTS.md': text },
        expect: /from AGENTS\.md\)[\s\S]*house style/,
        fromMirror: true,
      },
      {
        name: 'denied paths are not read',
        files: { '.docwright/AGENTS.md': null, 'AGENTS.md': text },
        denied: ['AGENTS.md'],
        expect: null,
        fromMirror: true,
      },
      {
        name: 'a symlink out of the repository is refused',
        files: { '.docwright/AGENTS.md': null, 'AGENTS.md': null },
        symlinks: { 'AGENTS.md': '/etc/passwd' },
        expect: null,
        fromMirror: false,
      },
      {
        name: 'a symlink inside the repository is followed',
        files: { '.docwright/AGENTS.md': null, 'docs/agents.md': text },
        symlinks: { 'AGENTS.md': 'docs/agents.md' },
        expect: /from AGENTS\.md\)[\s\S]*house style/,
        fromMirror: false,
      },
    ];
    for (const c of cases) {
      await commitToMain(bare, c.files, c.symlinks);
      await h.setSettings({ deniedPaths: c.denied ?? null });
      const requestsBefore = h.llm.requests.length;
      const released = c.fromMirror ? holdWorktreeUntilModelAsks() : null;
      const job = await runFinishOnlyJob(c.name);
      assert.equal(job.status, 'completed', `${c.name}: ${JSON.stringify(job.error)}`);
      if (released) assert.equal(await released, 'model request', c.name);
      const system = h.llm.requests[requestsBefore]!.system;
      if (c.expect) assert.match(system, c.expect, c.name);
      else assert.doesNotMatch(system, /Repository instructions/, c.name);
      assert.doesNotMatch(system, /root:/, `${c.name}: /etc/passwd must never be read`);
    }
  });

  test('a worktree that cannot be made during the first model call: repository_unavailable, the call aborted', {
    timeout: 60_000,
  }, async () => {
    // A page the mirror has not downloaded yet: the checkout must fetch its contents.
    await commitToMain(bare, {
      'AGENTS.md': '# For agents\n\n- Be brief.\n',
      'docs/new-page.md': `# New ${randomBytes(8).toString('hex')}\n`,
    });
    const away = `${bare}.away`;
    // Once the model is thinking, the repository disappears from the host.
    runner.beforeRelease = () => rename(bare, away);
    const requestsBefore = h.llm.requests.length;
    const released = holdWorktreeUntilModelAsks();
    h.llm.enqueue(reply.hang());
    try {
      const created = await h.createJob('Lost repository');
      const job = await h.waitForJob(created.id);
      assert.equal(await released, 'model request');
      assert.equal(job.status, 'failed');
      assert.equal(job.error?.code, 'repository_unavailable', job.error?.message);
      const aborted = await h.llm.waitForAbort(requestsBefore);
      assert.ok(aborted.abortedAt !== null, 'the model request was aborted');
      // Removed after the outcome is recorded (docs/agent-jobs.md, step 7).
      await eventually('the worktree to be removed', async () => (await h.worktrees()).length === 0);
    } finally {
      await rename(away, bare);
    }
  });
});

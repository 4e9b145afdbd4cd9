// The baseline of the agent benchmark: the git work of one job done by hand with plain git
// commands, as a person (or a CI script) would do it: clone the repository over HTTP, make a
// branch, change one file, commit, push. Same server, same Authorization header (through
// GIT_CONFIG_* like docwright, so neither side pays for a credential helper), same tmpfs.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PlainGitTimes {
  clone: number;
  branch: number;
  edit: number;
  commit: number;
  push: number;
  total: number;
}

function plainEnv(authorization: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: 'Plain Git',
    GIT_AUTHOR_EMAIL: 'plain@example.test',
    GIT_COMMITTER_NAME: 'Plain Git',
    GIT_COMMITTER_EMAIL: 'plain@example.test',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: ${authorization}`,
  };
}

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Clone → branch → edit `path` (replace `oldText` by `newText`) → commit → push, each step timed.
 * The clone goes to a new directory under `scratch`, removed afterwards (not timed).
 */
export async function plainGitJob(input: {
  url: string;
  authorization: string;
  scratch: string;
  branch: string;
  path: string;
  oldText: string;
  newText: string;
}): Promise<PlainGitTimes> {
  const env = plainEnv(input.authorization);
  const dir = await mkdtemp(join(input.scratch, 'plain-'));
  const git = (args: string[], cwd = dir) => run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  try {
    const clone = await ms(() => git(['clone', '--quiet', input.url, dir], input.scratch));
    const branch = await ms(() => git(['checkout', '--quiet', '-b', input.branch]));
    const edit = await ms(async () => {
      const file = join(dir, input.path);
      const text = await readFile(file, 'utf8');
      if (!text.includes(input.oldText)) throw new Error(`${input.path} lacks "${input.oldText}"`);
      await writeFile(file, text.replace(input.oldText, input.newText));
    });
    const commit = await ms(async () => {
      await git(['add', '--', input.path]);
      await git(['commit', '--quiet', '-m', `Edit ${input.path}`]);
    });
    const push = await ms(() => git(['push', '--quiet', 'origin', `HEAD:refs/heads/${input.branch}`]));
    return { clone, branch, edit, commit, push, total: clone + branch + edit + commit + push };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

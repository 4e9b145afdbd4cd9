// What a code change changed, read from the code mirror at its commit: the changed files
// (name-status against what it is compared with) and a unified diff cut to a size a prompt can
// hold (capDiff: between files, with a note naming the files left out, so the model knows it did
// not see everything and can read them with the code tools).
import { capDiff } from '../../util/diff-cap.ts';
import { buildGitEnv } from '../workspace/git-env.ts';
import type { GitRunner } from '../workspace/git-runner.ts';
import type { CodeCommit } from './code-mirror.ts';

/** Most changed files listed. */
export const MAX_CHANGED_FILES = 500;
/** git's output is not read past this: far more than MAX_DIFF_CHARS needs. */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;

export interface ChangeSummary {
  /** Paths the change added, modified or deleted (a rename lists both paths), at most 500. */
  changedFiles: string[];
  /** "M\tpath" lines, as git diff --name-status prints them. */
  nameStatus: string[];
  diff: string;
}

const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

async function git(runner: GitRunner, mirrorPath: string, args: string[], maxStdoutBytes?: number) {
  const result = await runner.run(args, {
    cwd: mirrorPath,
    env: buildGitEnv({ unlocked: true }),
    maxStdoutBytes,
  });
  if (result.exitCode !== 0 && !result.truncated)
    throw new Error(`git ${args[0]} failed in the code mirror: ${result.stderr.trim().slice(0, 300)}`);
  return result;
}

export async function summariseChange(runner: GitRunner, commit: CodeCommit): Promise<ChangeSummary> {
  const base = commit.base ?? (commit.commit.length === 64 ? null : EMPTY_TREE_SHA1);
  const range = base === null ? ['--root', commit.commit] : [base, commit.commit];
  const names = await git(runner, commit.mirrorPath, [
    'diff-tree',
    '-r',
    '-z',
    '-M',
    '--no-commit-id',
    '--name-status',
    ...range,
  ]);
  const fields = names.stdout.split('\0');
  const changedFiles = new Set<string>();
  const nameStatus: string[] = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    if (!status) continue;
    const paths =
      status.startsWith('R') || status.startsWith('C') ? [fields[i++]!, fields[i++]!] : [fields[i++]!];
    if (nameStatus.length < MAX_CHANGED_FILES) nameStatus.push([status.slice(0, 1), ...paths].join('\t'));
    for (const path of paths) if (changedFiles.size < MAX_CHANGED_FILES) changedFiles.add(path);
  }
  const patch = await git(
    runner,
    commit.mirrorPath,
    ['diff-tree', '-r', '-p', '-M', '--no-color', '--no-commit-id', '--no-ext-diff', ...range],
    MAX_DIFF_BYTES,
  );
  return { changedFiles: [...changedFiles], nameStatus, diff: capDiff(patch.stdout, patch.truncated) };
}

export { capDiff, MAX_DIFF_CHARS } from '../../util/diff-cap.ts';

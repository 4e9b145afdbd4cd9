// git as the tools use it (ls-files, grep): read-only, in the worktree, with the workspace's safe
// environment and no credential at all (a tool never needs the network).
import { buildGitEnv } from '../workspace/git-env.ts';
import type { GitResult } from '../workspace/git-runner.ts';
import type { ToolContext } from './tool-context.ts';

export function toolGit(
  context: ToolContext,
  args: readonly string[],
  maxStdoutBytes?: number,
): Promise<GitResult> {
  return context.git.run(args, {
    cwd: context.guards.root,
    env: buildGitEnv({ unlocked: true }),
    maxStdoutBytes,
  });
}

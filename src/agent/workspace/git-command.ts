// One git command of the workspace: the runner, the safe environment with the credential header,
// and a typed, scrubbed failure when git exits with an error. Nothing git prints leaves this
// function without passing through the scrubber.

import { gitFailure, WorkspaceFailure } from './failures.ts';
import { buildGitEnv } from './git-env.ts';
import type { GitResult, GitRunner } from './git-runner.ts';
import type { Scrubber } from './scrub.ts';

export interface GitContext {
  runner: GitRunner;
  /**
   * Sent with every command, not only fetch and push: a partial clone fetches missing file
   * contents lazily during checkout and diff, and those requests need it too.
   */
  authorization: string | null;
  scrub: Scrubber;
  signal?: AbortSignal;
}

export interface GitCommandOptions {
  cwd: string;
  /** What was being done, for the failure message: "fetching", "pushing"... */
  action: string;
  /** True outside the mirror lock: no automatic gc. */
  unlocked?: boolean;
  /** True for a command under the lock that is to leave maintenance to a later one (mirror.ts). */
  skipMaintenance?: boolean;
  /** Exit codes that are answers rather than failures (e.g. 1 from diff --quiet). */
  okExitCodes?: readonly number[];
  extraEnv?: Record<string, string>;
  maxStdoutBytes?: number;
  /** See GitRunOptions. */
  stdin?: string;
  binaryStdout?: boolean;
}

export async function runGit(
  context: GitContext,
  args: readonly string[],
  options: GitCommandOptions,
): Promise<GitResult> {
  const env = buildGitEnv({
    authorization: context.authorization,
    unlocked: options.unlocked || options.skipMaintenance,
    extra: options.extraEnv,
  });
  let result: GitResult;
  try {
    result = await context.runner.run(args, {
      cwd: options.cwd,
      env,
      signal: context.signal,
      maxStdoutBytes: options.maxStdoutBytes,
      stdin: options.stdin,
      binaryStdout: options.binaryStdout,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new WorkspaceFailure(
      'git_failed',
      code === 'ENOENT'
        ? `git could not be started (${options.action}): it is not on PATH, or ${options.cwd} does not exist`
        : `git could not be started (${options.action}): ${code ?? 'unknown error'}`,
    );
  }
  const ok = result.exitCode === 0 || (options.okExitCodes ?? []).includes(result.exitCode);
  if (!ok) throw gitFailure(options.action, context.scrub(result.stderr));
  return result;
}

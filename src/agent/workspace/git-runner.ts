// Runs the git binary with an argument array (never a shell, so no argument is ever interpreted)
// and collects what it prints. Every invocation is announced to an optional observer first, so
// tests can check that no credential reaches argv; the environment is not announced because it
// carries the Authorization header by design. Commands start in the shared helper process
// (git-helper-client.ts: starting them from a large process is slow), or directly when there is
// no helper.
import { spawn } from 'node:child_process';
import { collectChildOutput } from './child-output.ts';
import { type GitHelperClient, GitHelperUnavailable, sharedGitHelper } from './git-helper-client.ts';

export interface GitInvocation {
  args: readonly string[];
  cwd: string;
}

export interface GitRunOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Stop reading (and end git) once stdout reaches this many bytes; the result says so. */
  maxStdoutBytes?: number;
  /** Written to git's standard input (which is otherwise empty), e.g. pack-objects' revisions. */
  stdin?: string;
  /** Also give stdout as bytes (`stdoutBytes`), for output that is not text (a pack). */
  binaryStdout?: boolean;
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** True when stdout was cut at maxStdoutBytes. */
  truncated: boolean;
  /** stdout as git wrote it, when binaryStdout was asked. */
  stdoutBytes?: Buffer;
}

export class GitRunner {
  private readonly observer: ((invocation: GitInvocation) => void) | undefined;
  private readonly binary: string;

  private readonly helper: GitHelperClient | null;

  constructor(
    options: {
      observe?: (invocation: GitInvocation) => void;
      binary?: string;
      /** 'direct' starts every command from this process (the helper's own tests compare both). */
      start?: 'helper' | 'direct';
      /** The helper to use; the process's shared one by default. */
      helper?: GitHelperClient;
    } = {},
  ) {
    this.observer = options.observe;
    this.binary = options.binary ?? 'git';
    this.helper = options.start === 'direct' ? null : (options.helper ?? sharedGitHelper());
  }

  async run(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
    this.observer?.({ args: [...args], cwd: options.cwd });
    if (this.helper) {
      try {
        return await this.helper.run(this.binary, args, options);
      } catch (error) {
        if (!(error instanceof GitHelperUnavailable)) throw error;
      }
    }
    return this.runDirect(args, options);
  }

  private runDirect(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        signal: options.signal,
      });
      const output = collectChildOutput(child, options.maxStdoutBytes);
      // git may exit before reading all of it (it failed): its exit status says so, not EPIPE.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.stdin);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const stdout = output.stdout();
        resolve({
          exitCode: output.exitCode(code, signal),
          stdout: stdout.toString('utf8'),
          stderr: output.stderr(),
          truncated: output.truncated,
          ...(options.binaryStdout ? { stdoutBytes: stdout } : {}),
        });
      });
    });
  }
}

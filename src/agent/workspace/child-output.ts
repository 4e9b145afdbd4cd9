// Collects a child process's output the way every git call needs it: stdout up to a limit (the
// child is stopped once it passes it, and the result says "truncated"), stderr up to 64 KiB (it
// is only read for failure messages). Node modules only: the git spawn helper imports it too.
import type { ChildProcess } from 'node:child_process';

const MAX_STDERR_BYTES = 64 * 1024;

export interface ChildOutput {
  stdout(): Buffer;
  stderr(): string;
  readonly truncated: boolean;
  /** The exit code to report: a git ended for printing too much did what was asked. */
  exitCode(code: number | null, signal: NodeJS.Signals | null): number;
}

export function collectChildOutput(
  child: ChildProcess,
  maxStdoutBytes: number | null | undefined,
): ChildOutput {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  let truncated = false;
  const limit = maxStdoutBytes ?? Number.POSITIVE_INFINITY;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (truncated) return;
    if (outBytes + chunk.length > limit) {
      out.push(chunk.subarray(0, limit - outBytes));
      outBytes = limit;
      truncated = true;
      child.kill('SIGTERM');
      return;
    }
    out.push(chunk);
    outBytes += chunk.length;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (errBytes >= MAX_STDERR_BYTES) return;
    err.push(chunk);
    errBytes += chunk.length;
  });
  return {
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err).toString('utf8'),
    get truncated() {
      return truncated;
    },
    exitCode: (code, signal) => (truncated ? 0 : (code ?? (signal ? 128 : 1))),
  };
}

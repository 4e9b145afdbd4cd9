// The git smart-HTTP stand-in (test/stand-ins/git-http-server.ts) in a process of its own, as a
// code host is: it starts `git http-backend` for every request, and starting programs from the
// benchmark's own process (which holds PGlite and the generated repository) would cost both
// docwright and the plain-git baseline time a real code host does not add.
//
// Run as a program, it serves the bare repositories under argv[2], demanding the Authorization
// value given on stdin, and prints its base URL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface GitServerProcess {
  baseUrl: string;
  repoUrl(name: string): string;
  close(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

export async function startGitServerProcess(root: string, authorization: string): Promise<GitServerProcess> {
  const child = spawn(process.execPath, [SELF, root], { stdio: ['pipe', 'pipe', 'inherit'] });
  // The credential goes over stdin, never in argv.
  child.stdin!.end(`${authorization}\n`);
  const lines = createInterface({ input: child.stdout! });
  const [baseUrl] = (await once(lines, 'line')) as [string];
  return {
    baseUrl,
    repoUrl: (name) => `${baseUrl}/${name}.git`,
    async close() {
      // A server already gone (killed by a signal: exitCode stays null, signalCode is set) has
      // sent its 'exit' before: waiting for it would never end, and the benchmark's error with it.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[1] === SELF) {
  const { startGitHttpServer } = await import('../../test/stand-ins/git-http-server.ts');
  const input = createInterface({ input: process.stdin });
  const [authorization] = (await once(input, 'line')) as [string];
  const server = await startGitHttpServer({ authorization, root: process.argv[2]! });
  process.stdout.write(`${server.baseUrl}\n`);
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}

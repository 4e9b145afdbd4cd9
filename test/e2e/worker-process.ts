// `docwright worker` as a real child process (src/main/cli.ts run by this Node), for tests that
// kill one with SIGKILL mid-run. Resolves once the worker logged that it started (it listens for
// new jobs from then on).
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI, logLines } from '../cli/cli-process.ts';

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Its worker id (host:pid:random), from the start-up log line. */
  workerId: string;
  output(): string;
  /** Sends the signal and waits for the process to be gone. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const START_TIMEOUT_MS = 30_000;

export async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [CLI, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (out += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const workerId = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`docwright worker did not start within ${START_TIMEOUT_MS} ms:\n${out}`));
    }, START_TIMEOUT_MS);
    const look = () => {
      const line = logLines(out).find((l) => l.msg === 'worker started');
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', look);
      resolve(String(line.worker));
    };
    child.stdout!.on('data', look);
    void exited.then((r) => {
      clearTimeout(timer);
      reject(new Error(`docwright worker exited (${r.code ?? r.signal}) before starting:\n${out}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    workerId,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

// A small separate process that starts git commands for docwright (see git-helper-client.ts for
// why). It is run by itself with this Node (`node git-spawn-helper.ts`), imports nothing but Node's
// own modules (and child-output.ts, which imports only those) so it stays small, and speaks newline-delimited JSON over its stdin and stdout:
//
//   in:  {"op":"run","id":1,"file":"git","args":[...],"cwd":"...","env":{...},"maxStdoutBytes":n|null,
//         "stdin":"..." (optional: written to the command's standard input, otherwise empty)}
//        {"op":"kill","id":1}
//   out: {"ready":true} once, then per run
//        {"id":1,"exitCode":0,"stdout":"<base64>","stderr":"...","truncated":false}
//        {"id":1,"error":{"code":"ENOENT","message":"..."}}   (the program could not be started)
//
// It never writes anything else, and never logs: requests carry the git environment, which holds
// the code host's Authorization header. When docwright goes away (stdin ends), commands already
// running finish and the helper exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { collectChildOutput } from './child-output.ts';

interface RunRequest {
  op: 'run';
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  maxStdoutBytes: number | null;
  stdin?: string;
}
interface KillRequest {
  op: 'kill';
  id: number;
}

const running = new Map<number, ChildProcess>();

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function run(request: RunRequest): void {
  let child: ChildProcess;
  try {
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    // A command may exit before reading all of it (it failed): its exit status says so.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(request.stdin);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    send({ id: request.id, error: { code: code ?? null, message } });
    return;
  }
  running.set(request.id, child);
  const output = collectChildOutput(child, request.maxStdoutBytes);
  let failed = false;
  child.on('error', (error: NodeJS.ErrnoException) => {
    failed = true;
    running.delete(request.id);
    send({ id: request.id, error: { code: error.code ?? null, message: error.message } });
  });
  child.on('close', (code, signal) => {
    running.delete(request.id);
    if (failed) return;
    send({
      id: request.id,
      exitCode: output.exitCode(code, signal),
      stdout: output.stdout().toString('base64'),
      stderr: output.stderr(),
      truncated: output.truncated,
    });
  });
}

// Nobody to answer once docwright is gone: a failed write must not crash the commands still going.
process.stdout.on('error', () => undefined);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let request: RunRequest | KillRequest;
  try {
    request = JSON.parse(line) as RunRequest | KillRequest;
  } catch {
    return;
  }
  if (request.op === 'run') run(request);
  else if (request.op === 'kill') running.get(request.id)?.kill('SIGTERM');
});
send({ ready: true });

// Runs the real `docwright` CLI (src/main/cli.ts) as child processes, each with its own data
// directory on tmpfs and an environment that holds only what the test sets.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/main/cli.ts', import.meta.url));

/** A fresh data directory; /dev/shm when present, because the disk here is slow. */
export function tempDataDir(): string {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  return join(mkdtempSync(join(base, 'dw-cli-')), 'data');
}

/** The parent's environment without any docwright setting, plus the test's own. */
export function cliEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(DOCWRIGHT_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, PORT: '0', ...settings };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const COMMAND_TIMEOUT_MS = 60_000;

function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs one CLI command to completion; a command that hangs is killed and the test fails. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
  try {
    const result = await collect(child);
    if (result.signal === 'SIGKILL') {
      throw new Error(`docwright ${args.join(' ')} did not finish within ${COMMAND_TIMEOUT_MS} ms`);
    }
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command that must succeed and print one JSON document. */
export async function runJson<T = unknown>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli(args, env);
  if (result.code !== 0) {
    throw new Error(`docwright ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  /** The API's base URL, from the `listening` log line. */
  url: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
  exited: Promise<CliResult>;
}

/**
 * Starts `docwright serve` and resolves once it logged `listening` and printed its banner. The
 * banner comes after that log line in one write of less than PIPE_BUF bytes, which a pipe passes
 * whole: once its first line is here, all of it is.
 */
export async function startServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not log "listening" within ${COMMAND_TIMEOUT_MS} ms:\n${out}\n${err}`));
    }, COMMAND_TIMEOUT_MS);
    const look = () => {
      const line = logLines(out).find((l) => l.msg === 'listening');
      if (line && out.includes('\ndocwright is running at ')) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(line.url as string);
      }
    };
    child.stdout!.on('data', look);
    exited.then((r) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${r.code}) before listening:\n${r.stdout}\n${r.stderr}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    url,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The JSON log lines among the output (the banner is plain text). */
export function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The plain-text lines among the output. */
export function textLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => !line.startsWith('{'));
}

/**
 * The projectId and key of a first start, or null when there was none. Without a terminal (as in
 * the tests) serve writes the first-start banner to an owner-only file and logs its path.
 */
export function firstStartCredentials(stdout: string): { projectId: string; key: string } | null {
  const file = logLines(stdout).find((l) => l.msg === 'listening')?.firstStartFile;
  return typeof file === 'string' ? bannerCredentials(readFileSync(file, 'utf8')) : null;
}

/** The projectId and key in the export lines of a first-start banner, or null. */
export function bannerCredentials(text: string): { projectId: string; key: string } | null {
  const project = /^ {2}export DOCWRIGHT_PROJECT=(prj_[0-9A-Za-z]+)$/m.exec(text);
  const key = /^ {2}export DOCWRIGHT_API_KEY=(dw_[0-9A-Za-z]+)$/m.exec(text);
  return project && key ? { projectId: project[1]!, key: key[1]! } : null;
}

export async function apiGet(url: string, key?: string): Promise<Response> {
  return fetch(url, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
}

/** A stack trace line, which an expected error must never print. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(node:)/m;

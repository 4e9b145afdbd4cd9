// Starts git commands through a small helper process (git-spawn-helper.ts) instead of from
// docwright's own process.
//
// Why: Node starts a program by forking itself first, and forking copies the parent's page tables,
// so it costs time in proportion to the memory the parent uses. docwright on its embedded database
// holds PGlite's WebAssembly memory: measured here, each git command started from an 850 MB
// process took about 50 ms before git even ran, against about 4 ms from the helper. A job runs
// a dozen git commands, and the tools run more. The helper is one long-lived process per docwright
// process, shared by every job, started on first use.
//
// If the helper cannot be started (or dies before it said it was ready), commands are started
// directly, as before, for the rest of the process's life. If it dies while commands run, those
// commands fail (they may have done part of their work, so they are not repeated) and the next one
// starts a new helper.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface HelperRunOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  maxStdoutBytes?: number;
  stdin?: string;
  binaryStdout?: boolean;
}

export interface HelperResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  stdoutBytes?: Buffer;
}

/** Thrown when no helper can run: the caller starts the command itself. */
export class GitHelperUnavailable extends Error {
  constructor(reason: string) {
    super(`the git helper process is not available: ${reason}`);
    this.name = 'GitHelperUnavailable';
  }
}

interface Pending {
  request: object;
  binaryStdout: boolean;
  resolve: (result: HelperResult) => void;
  reject: (error: Error) => void;
  sent: boolean;
}

interface Answer {
  ready?: boolean;
  id?: number;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  truncated?: boolean;
  error?: { code: string | null; message: string };
}

const HELPER = fileURLToPath(new URL('./git-spawn-helper.ts', import.meta.url));

/** Flags this Node needs to run a .ts file (Node 22 needs them; 23.6 and later do not). */
function typeScriptFlags(): string[] {
  return process.execArgv.filter((flag) =>
    /^--(experimental-(strip|transform)-types|no-experimental-strip-types)$/.test(flag),
  );
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

export interface GitHelperOptions {
  /** The Node that runs the helper (this one by default); tests give a missing one. */
  execPath?: string;
}

export class GitHelperClient {
  readonly #execPath: string;
  #child: ChildProcess | null = null;
  #ready = false;
  #unavailable: string | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  constructor(options: GitHelperOptions = {}) {
    this.#execPath = options.execPath ?? process.execPath;
  }

  /** The helper's process id while it runs (for tests). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Runs `file args` in the helper. Rejects with GitHelperUnavailable when there is no helper. */
  run(file: string, args: readonly string[], options: HelperRunOptions): Promise<HelperResult> {
    if (this.#unavailable !== null) return Promise.reject(new GitHelperUnavailable(this.#unavailable));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = this.#nextId++;
    return new Promise<HelperResult>((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        this.#write({ op: 'kill', id });
        this.#refWhileBusy();
        reject(abortError(signal!));
      };
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          signal?.removeEventListener('abort', onAbort);
          fn(value);
        };
      this.#pending.set(id, {
        request: {
          op: 'run',
          id,
          file,
          args,
          cwd: options.cwd,
          env: options.env,
          maxStdoutBytes: options.maxStdoutBytes ?? null,
          ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        },
        binaryStdout: options.binaryStdout === true,
        resolve: settle(resolve),
        reject: settle(reject),
        sent: false,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#ensureStarted();
      this.#flush();
      this.#refWhileBusy();
    });
  }

  #ensureStarted(): void {
    if (this.#child !== null) return;
    this.#ready = false;
    let child: ChildProcess;
    try {
      // Nothing of docwright's environment: requests bring git's own, built from scratch.
      child = spawn(this.#execPath, [...typeScriptFlags(), HELPER], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
    } catch (error) {
      this.#giveUp(`it could not be started (${(error as Error).message})`);
      return;
    }
    this.#child = child;
    child.stdin!.on('error', () => undefined); // a dead helper is reported by 'exit'
    createInterface({ input: child.stdout! }).on('line', (line) => this.#onLine(line));
    child.once('error', (error) => this.#onExit(child, `it could not be started (${error.message})`));
    child.once('exit', (code, signal) => this.#onExit(child, `it exited (${signal ?? code})`));
  }

  #onLine(line: string): void {
    let answer: Answer;
    try {
      answer = JSON.parse(line) as Answer;
    } catch {
      return;
    }
    if (answer.ready) {
      this.#ready = true;
      this.#flush();
      return;
    }
    const pending = answer.id === undefined ? undefined : this.#pending.get(answer.id);
    if (!pending) return; // aborted meanwhile
    this.#pending.delete(answer.id!);
    this.#refWhileBusy();
    if (answer.error) {
      const error = new Error(answer.error.message) as NodeJS.ErrnoException;
      if (answer.error.code) error.code = answer.error.code;
      pending.reject(error);
      return;
    }
    const stdout = Buffer.from(answer.stdout ?? '', 'base64');
    pending.resolve({
      exitCode: answer.exitCode ?? 1,
      stdout: stdout.toString('utf8'),
      stderr: answer.stderr ?? '',
      truncated: answer.truncated === true,
      ...(pending.binaryStdout ? { stdoutBytes: stdout } : {}),
    });
  }

  #onExit(child: ChildProcess, reason: string): void {
    if (this.#child !== child) return;
    this.#child = null;
    if (!this.#ready) {
      // It never worked: run everything directly from now on, these requests included.
      this.#giveUp(reason);
      return;
    }
    for (const [id, pending] of this.#pending) {
      if (!pending.sent) continue; // not started yet: the next helper takes it
      this.#pending.delete(id);
      pending.reject(new Error(`the git helper process stopped while git ran: ${reason}`));
    }
    if (this.#pending.size > 0) this.#ensureStarted();
    this.#refWhileBusy();
  }

  #giveUp(reason: string): void {
    this.#unavailable = reason;
    for (const pending of this.#pending.values()) pending.reject(new GitHelperUnavailable(reason));
    this.#pending.clear();
  }

  #flush(): void {
    if (!this.#ready) return;
    for (const pending of this.#pending.values()) {
      if (pending.sent) continue;
      pending.sent = true;
      this.#write(pending.request);
    }
  }

  #write(message: object): void {
    this.#child?.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** The helper keeps docwright alive only while it runs something for it. */
  #refWhileBusy(): void {
    const child = this.#child;
    if (!child) return;
    const busy = this.#pending.size > 0;
    for (const handle of [child, child.stdin, child.stdout] as ({ ref(): void; unref(): void } | null)[]) {
      if (busy) handle?.ref();
      else handle?.unref();
    }
  }
}

let shared: GitHelperClient | null = null;

/** The process's one helper client (the helper itself starts on the first command). */
export function sharedGitHelper(): GitHelperClient {
  shared ??= new GitHelperClient();
  return shared;
}

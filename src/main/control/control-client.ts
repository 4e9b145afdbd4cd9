// The CLI side of the control socket: sends one admin command to the running server.
import { request } from 'node:http';
import { AppError } from '../../errors/app-error.ts';
import { RUN_PATH, type RunFailure, type RunSuccess } from './protocol.ts';

/** How long a command may take on the server before the CLI gives up (it never waits forever). */
const COMMAND_TIMEOUT_MS = 60_000;

/** Raised when the command may have reached the server but no answer came back. */
export class ControlConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ControlConnectionError';
  }
}

export type SendOutcome = { delivered: true; result: unknown } | { delivered: false; reason: string };

/**
 * Runs the command on the server behind socketPath. Answers { delivered: false } only when the
 * connection was refused, so the command certainly did not run and the caller may look again
 * (the server stopped meanwhile). A server-side error is thrown as the AppError it was.
 */
export function sendToServer(socketPath: string, command: string, input: unknown): Promise<SendOutcome> {
  const body = JSON.stringify({ command, input });
  return new Promise((resolve, reject) => {
    let connected = false;
    const req = request(
      {
        socketPath,
        method: 'POST',
        path: RUN_PATH,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: COMMAND_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (error) => reject(lost(command, error)));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch (error) {
            reject(lost(command, error));
            return;
          }
          if (res.statusCode === 200) {
            resolve({ delivered: true, result: (parsed as RunSuccess).result });
            return;
          }
          const failure = parsed as RunFailure;
          reject(
            new AppError(failure.code, res.statusCode ?? 500, failure.error, {
              ...(failure.details ? { details: failure.details } : {}),
            }),
          );
        });
      },
    );
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${COMMAND_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) {
        resolve({ delivered: false, reason: error.code });
      } else {
        reject(lost(command, error));
      }
    });
    req.end(body);
  });
}

function lost(command: string, cause: unknown): ControlConnectionError {
  return new ControlConnectionError(
    `Lost the connection to the running server while it ran "docwright ${command}" (${(cause as Error).message}). ` +
      'It may or may not have taken effect: check with the matching list command.',
    { cause },
  );
}

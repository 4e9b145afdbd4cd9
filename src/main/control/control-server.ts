// The server side of the control socket: the running server executes the CLI's admin commands on
// the database it holds, so they work while the embedded database is in use. Only the data
// directory's owner can reach the socket (socket 0600 inside a 0700 directory).
import { chmodSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Value } from 'typebox/value';
import type { Database } from '../../db/database.ts';
import { AppError } from '../../errors/app-error.ts';
import { httpErrors } from '../../errors/request-errors.ts';
import type { Logger } from '../../util/logger.ts';
import type { AdminCommand, AdminContext } from '../commands/admin-command.ts';
import { MAX_REQUEST_BYTES, RUN_PATH, type RunFailure, type RunRequest } from './protocol.ts';
import { chooseControlSocketPath } from './socket-path.ts';

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

export async function startControlSocket(options: {
  dataDir: string;
  db: Database;
  logger: Logger;
  commands: ReadonlyMap<string, AdminCommand>;
  context: AdminContext;
}): Promise<ControlSocket> {
  const { db, logger, commands } = options;
  const { path, privateDir } = chooseControlSocketPath(options.dataDir);
  // Whoever left this file is gone: we hold the data directory's lock.
  try {
    unlinkSync(path);
  } catch {}

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'control socket request failed');
      if (!response.headersSent) reply(response, 500, failure(internal()));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST' || request.url !== RUN_PATH) {
      request.resume();
      reply(response, 404, failure(httpErrors.route_not_found(`Only POST ${RUN_PATH} is served here.`)));
      return;
    }
    const parsed = await readJson(request);
    if (parsed instanceof AppError) return reply(response, parsed.status, failure(parsed));
    const { command: name, input } = (parsed ?? {}) as Partial<RunRequest>;
    const command = typeof name === 'string' ? commands.get(name) : undefined;
    if (!command) {
      return reply(response, 404, failure(httpErrors.route_not_found(`No admin command "${String(name)}".`)));
    }
    if (!Value.Check(command.input, input)) {
      const details = [...Value.Errors(command.input, input)].map((e) => ({
        location: 'body',
        name: e.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'input',
        message: `${e.instancePath || 'input'} ${e.message}`,
      }));
      return reply(
        response,
        400,
        failure(httpErrors.invalid_body(`Malformed input for "${command.name}".`, { details })),
      );
    }
    // Only the command's name is logged: inputs and results may carry a key.
    logger.info({ command: command.name }, 'admin command');
    try {
      const result = await command.run(db, input, options.context);
      reply(response, 200, { result });
    } catch (error) {
      if (error instanceof AppError && error.status < 500)
        return reply(response, error.status, failure(error));
      logger.error({ err: error, command: command.name }, 'admin command failed');
      reply(response, 500, failure(internal()));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);

  return {
    path,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      try {
        unlinkSync(path);
      } catch {}
      if (privateDir !== null) rmSync(privateDir, { recursive: true, force: true });
    },
  };
}

function internal(): AppError {
  return httpErrors.internal_error('The server failed to run the command; its log has the details.');
}

function failure(error: AppError): RunFailure {
  const body: RunFailure = { error: error.message, code: error.code };
  if (error.details && error.details.length > 0) body.details = error.details;
  return body;
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return httpErrors.body_too_large('The command is too large.');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return httpErrors.invalid_json('The body is not valid JSON.');
  }
}

// Answers the errors Fastify and Node raise before a route (and so the error handler) is reached
// in the one error body, {error, code, requestId}, with a code from the registry. Left alone they
// answer in their own shapes: Fastify's {error, code: "FST_ERR_BAD_URL", message} quoting the URL
// for bad percent-encoding and for a path parameter over 100 characters (414), and for what Node's
// HTTP parser refuses (a request line and headers over 16 KiB, a malformed Content-Length, a
// garbage request line) a 431 with an empty body or a 400 in Fastify's shape. None of these
// answers repeats the URL: it may be long, and it may carry what the client did not mean to show.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import type { ErrorBody } from './error-handler.ts';

/** The server's request ids: `req_` and 32 hex digits. */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** Fastify's frameworkErrors option: a bad URL or an over-long path parameter, found by the router. */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const answer = frameworkAppError(error);
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
  const body: ErrorBody = { error: answer.message, code: answer.code, requestId: request.id };
  reply
    .code(answer.status)
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(body);
}

function frameworkAppError(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return httpErrors.invalid_url(
        'The URL path is not valid percent-encoded UTF-8 (each % must start a valid escape such as %20).',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return httpErrors.parameter_too_long('A path parameter is longer than 100 characters.');
    default:
      return httpErrors.internal_error('Internal server error.');
  }
}

/** What Node's HTTP parser reports on a connection, as status and error (code from the registry). */
function clientAppError(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return httpErrors.headers_too_large(
        'The request line and headers are larger than 16 KiB; most often the URL is too long.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpErrors.request_timeout('The request was not received in full in time.');
    default:
      return httpErrors.bad_request(
        'The request is not valid HTTP/1.1 (its request line, a header or its Content-Length is malformed).',
      );
  }
}

/**
 * Node's clientError event: there is no request or reply, so the answer is written to the socket
 * as raw HTTP, and the connection is closed (what follows on it cannot be trusted to be framed).
 */
export function clientErrorHandler(log: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset or closed connection has no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newRequestId();
    log.debug({ requestId, code: error.code }, 'client error on a connection');
    // A response already under way on this socket cannot be followed by another.
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !pending?.headersSent) {
      const answer = clientAppError(error);
      const body = JSON.stringify({
        error: answer.message,
        code: answer.code,
        requestId,
      } satisfies ErrorBody);
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Error'}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

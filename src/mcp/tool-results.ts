// A tool's outcome as MCP's CallToolResult. Success: the value as structuredContent (checked by
// clients against the tool's output schema) and as JSON text for clients that read only text.
// Failure: isError with the API's error body as JSON text, {error, code, details?, requestId}, so
// the model reads the same words and code an HTTP client gets; these are tool errors, not
// protocol errors, as MCP asks for failures the model may correct (bad arguments, a job that is
// still active, a scope the key lacks).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorBody } from '../contract/index.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { AppError } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import type { ToolOutcome } from './tool.ts';

export function successResult(outcome: ToolOutcome): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(outcome.value) }];
  for (const note of outcome.notes ?? []) content.push({ type: 'text', text: note });
  return { content, structuredContent: outcome.value as Record<string, unknown> };
}

/** The failure as a tool error; faults that are not the caller's are logged, never shown. */
export function errorResult(
  error: unknown,
  requestId: string,
  logFault: (error: unknown) => void,
): CallToolResult {
  const answer = toAppError(error, requestId);
  if (answer.status >= 500) logFault(answer.cause ?? answer);
  const body: ErrorBody = { error: asArgument(answer.message), code: answer.code, requestId };
  if (answer.details && answer.details.length > 0) {
    // Services name where a value came from over HTTP (query, body, path); here it is an argument.
    body.details = answer.details.map((d) => ({
      ...d,
      location: 'arguments',
      message: asArgument(d.message),
    }));
  }
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** The services' words for an HTTP value ("Query parameter "dateFrom" ...") said of an argument. */
function asArgument(message: string): string {
  return message.replace(/^(?:Query parameter|Path parameter|Field) "/, 'Argument "');
}

function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    return httpErrors.database_unavailable(
      'The database cannot be reached right now; retry in a few seconds.',
      {
        cause: error,
      },
    );
  }
  return httpErrors.internal_error(
    `Internal server error. Quote request id ${requestId} when reporting it.`,
    {
      cause: error,
    },
  );
}

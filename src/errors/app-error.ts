// The one error type every layer throws for an answer a client should see. Each code is declared
// once, with its HTTP status and a description, in the contract (src/contract/error-codes.ts);
// the module that answers it turns its table into factories with defineErrors(), and
// src/contract/error-registry.ts gathers them all for docs/errors.md.
import type { ErrorDetail, ErrorSpec } from '../contract/index.ts';

// A detail is the error body's: location (query, params, body, header), the name of the
// parameter, field or header at fault, and a message.
export type { ErrorDetail, ErrorSpec };

export interface AppErrorOptions {
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: string, status: number, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export type ErrorFactory = ((message: string, options?: AppErrorOptions) => AppError) & {
  readonly code: string;
  readonly spec: ErrorSpec;
};

/** Turns {code: spec} into {code: factory}; the factory builds the AppError for that code. */
export function defineErrors<const T extends Record<string, ErrorSpec>>(
  specs: T,
): { [K in keyof T]: ErrorFactory } {
  const factories = {} as Record<string, ErrorFactory>;
  for (const [code, spec] of Object.entries(specs)) {
    const factory = (message: string, options?: AppErrorOptions) =>
      new AppError(code, spec.status, message, options);
    factories[code] = Object.assign(factory, { code, spec });
  }
  return factories as { [K in keyof T]: ErrorFactory };
}

// How model trouble reaches the job: a ModelFailure whose code is one of the job failure codes
// (docs/errors.md, "Job failure codes"). The adapter does not import the jobs module; the two
// codes below are the ones src/modules/jobs/failure-codes.ts lists, and test/models checks that.

export const MODEL_FAILURE_CODES = {
  model_not_configured:
    'No usable model: none configured, an unknown provider, or a provider without its API key / base URL; the message names the variables to set.',
  model_error:
    "The provider refused the request for a reason retrying cannot fix, or kept failing (or keeping calls waiting past the model timeout) after retries; the message is the provider's, without secrets.",
} as const;
export type ModelFailureCode = keyof typeof MODEL_FAILURE_CODES;

export interface ModelFailureUsage {
  inputTokens: number;
  outputTokens: number;
  steps: number;
}

export interface ModelFailureOptions {
  /** The provider's trouble was transient (429, 5xx, network) and the retries ran out. */
  retryable?: boolean;
  /** The provider's HTTP status, when it answered. */
  statusCode?: number | null;
  /** Tokens and steps spent before the failure, when a run was under way. */
  usage?: ModelFailureUsage | null;
}

export class ModelFailure extends Error {
  readonly code: ModelFailureCode;
  readonly retryable: boolean;
  readonly statusCode: number | null;
  readonly usage: ModelFailureUsage | null;

  constructor(code: ModelFailureCode, message: string, options: ModelFailureOptions = {}) {
    // The cause is kept off the error on purpose: provider errors carry request bodies and
    // headers, and whoever logs this error must not log those.
    super(message);
    this.name = 'ModelFailure';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.statusCode = options.statusCode ?? null;
    this.usage = options.usage ?? null;
  }

  /** The same failure, saying what the run had spent when it happened. */
  withUsage(usage: ModelFailureUsage): ModelFailure {
    return new ModelFailure(this.code, this.message, {
      retryable: this.retryable,
      statusCode: this.statusCode,
      usage,
    });
  }

  static isInstance(error: unknown): error is ModelFailure {
    return error instanceof ModelFailure;
  }
}

export const modelNotConfigured = (message: string) => new ModelFailure('model_not_configured', message);

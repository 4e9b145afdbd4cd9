// What a provider error means for docwright: whether waiting and trying again can help, how long
// the provider asked us to wait, and the provider's own message. Built on the AI SDK's
// APICallError (status, headers, body, isRetryable), which every provider package throws.
import { AISDKError, APICallError, RetryError } from 'ai';
import { ModelFailure } from './errors.ts';
import { redactSecrets } from './redact.ts';
import { ModelTimeoutError } from './timeout.ts';

export interface ProviderErrorInfo {
  /** The HTTP status, or null when no answer came (network failure, invalid answer). */
  statusCode: number | null;
  retryable: boolean;
  /** What the provider asked for in retry-after-ms / retry-after, in milliseconds. */
  retryAfterMs: number | null;
  /** The provider's message (not yet redacted). */
  message: string;
}

export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof Error || (typeof DOMException === 'function' && error instanceof DOMException)) &&
    (error.name === 'AbortError' || error.name === 'ResponseAborted' || error.name === 'TimeoutError')
  );
}

/**
 * Describes an error thrown by a model call, or returns null when it is not the provider's doing:
 * an abort, or a fault in docwright's own code, which callers must not disguise as model_error.
 */
export function describeProviderError(error: unknown): ProviderErrorInfo | null {
  if (isAbortError(error)) return null;
  // A provider that kept the call waiting past DOCWRIGHT_MODEL_TIMEOUT_SECONDS: transient, like a 503.
  if (ModelTimeoutError.isInstance(error)) {
    return { statusCode: null, retryable: true, retryAfterMs: null, message: error.message };
  }
  // The AI SDK's own retry (when a caller leaves it on) wraps the attempts; the last one counts.
  if (RetryError.isInstance(error)) return describeProviderError(error.lastError);
  if (APICallError.isInstance(error)) {
    const statusCode = error.statusCode ?? null;
    return {
      statusCode,
      retryable: error.isRetryable && !isQuotaExhausted(error.responseBody),
      retryAfterMs: retryAfterMs(error.responseHeaders),
      message: error.message || 'no message from the provider',
    };
  }
  // Any other AI SDK error is about the provider's answer (unparseable, empty, invalid).
  if (AISDKError.isInstance(error)) {
    return { statusCode: null, retryable: false, retryAfterMs: null, message: error.message };
  }
  return null;
}

/**
 * A 429 that no wait will fix: OpenAI's insufficient_quota (no credit left) and Anthropic's
 * enforced_spend_limit_reached (monthly spend cap). Retrying those only delays the failure.
 */
function isQuotaExhausted(responseBody: string | undefined): boolean {
  if (!responseBody) return false;
  try {
    const body = JSON.parse(responseBody) as {
      error?: { code?: unknown; type?: unknown; details?: { error_code?: unknown } };
    };
    const e = body.error;
    return (
      e?.code === 'insufficient_quota' ||
      e?.type === 'insufficient_quota' ||
      e?.details?.error_code === 'enforced_spend_limit_reached'
    );
  } catch {
    return false;
  }
}

/**
 * retry-after-ms (OpenAI, milliseconds) wins over retry-after (seconds, or an HTTP date).
 * Returns null when neither is present or readable.
 */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  const ms = lower['retry-after-ms'];
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number.parseFloat(ms);
  const after = lower['retry-after'];
  if (after === undefined) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Number.parseFloat(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export interface FailureContext {
  /** provider:model, so the message says which model failed. */
  modelName: string;
  /** Values to remove from the message (the API key, and any other credential in play). */
  secrets?: readonly (string | null | undefined)[];
  /** How many times the call was tried, when more than once. */
  attempts?: number;
}

const MAX_MESSAGE_LENGTH = 2000;

/**
 * The job failure for a provider error: model_error with the provider's message, secrets
 * removed. Null when the error is not the provider's (an abort, or a fault in docwright).
 */
export function modelFailureFrom(error: unknown, context: FailureContext): ModelFailure | null {
  if (ModelFailure.isInstance(error)) return error;
  const info = describeProviderError(error);
  if (info === null) return null;
  const what = info.statusCode === null ? 'failed' : `answered HTTP ${info.statusCode}`;
  const tries =
    context.attempts !== undefined && context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
  let message = redactSecrets(`${context.modelName} ${what}: ${info.message}${tries}`, context.secrets);
  if (message.length > MAX_MESSAGE_LENGTH) message = `${message.slice(0, MAX_MESSAGE_LENGTH)}…`;
  return new ModelFailure('model_error', message, { retryable: info.retryable, statusCode: info.statusCode });
}

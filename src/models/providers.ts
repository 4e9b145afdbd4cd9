// Builds the AI SDK language model for a provider:model, with docwright's retries around it and a
// bound on how long each attempt may wait for the provider.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, wrapLanguageModel } from 'ai';
import { PROVIDER_VARIABLES, type ProviderCredentials } from './environment.ts';
import { modelNotConfigured } from './errors.ts';
import { formatModelSpec, type ModelSpec } from './model-spec.ts';
import { type RetryEvent, type RetryPolicy, retryMiddleware } from './retry.ts';
import { DEFAULT_MODEL_TIMEOUT_MS, timeoutMiddleware } from './timeout.ts';

export interface ModelOptions {
  retry?: Partial<RetryPolicy>;
  /** Told about each retry (for a job event or a log line); the message has no secrets. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * How long one attempt may wait for the provider: for a whole answer, or between two parts of
   * a streamed one (DOCWRIGHT_MODEL_TIMEOUT_SECONDS; default 300 s).
   */
  timeoutMs?: number;
}

export interface ResolvedModel {
  /** provider:model, as the job records it. */
  name: string;
  spec: ModelSpec;
  model: LanguageModel;
}

/** The language model for spec; throws model_not_configured when a credential is missing. */
export function createModel(
  spec: ModelSpec,
  credentials: ProviderCredentials,
  options: ModelOptions = {},
): ResolvedModel {
  const name = formatModelSpec(spec);
  const vars = PROVIDER_VARIABLES[spec.provider];
  const apiKey = blankToNull(credentials.apiKey);
  const baseURL = blankToNull(credentials.baseURL);
  if (vars.apiKey.required && apiKey === null) {
    throw modelNotConfigured(
      `The model ${name} needs an API key: set ${vars.apiKey.name} on the server, or store the project's modelApiKey secret.`,
    );
  }
  if (vars.baseURL.required && baseURL === null) {
    throw modelNotConfigured(
      `The model ${name} needs the server's base URL: set ${vars.baseURL.name} (e.g. http://localhost:11434/v1 for Ollama)${
        vars.apiKey.required ? '' : `, and ${vars.apiKey.name} if the server wants a key`
      }.`,
    );
  }
  if (baseURL !== null && !isHttpUrl(baseURL)) {
    // The value is not echoed: a base URL may carry credentials.
    throw modelNotConfigured(`${vars.baseURL.name} must be an http(s) URL such as https://host/v1.`);
  }

  const model = wrapLanguageModel({
    model: baseModel(spec, apiKey, baseURL),
    // The first wraps the second: every retry gets a fresh clock.
    middleware: [
      retryMiddleware({
        ...(options.retry ? { policy: options.retry } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
        context: { modelName: name, secrets: [apiKey] },
      }),
      timeoutMiddleware(options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS),
    ],
  });
  return { name, spec, model };
}

function baseModel(spec: ModelSpec, apiKey: string | null, baseURL: string | null) {
  const base = baseURL === null ? {} : { baseURL: baseURL.replace(/\/+$/, '') };
  switch (spec.provider) {
    case 'anthropic':
      return createAnthropic({ ...base, apiKey: apiKey! })(spec.modelId);
    case 'openai':
      // .chat(): Chat Completions. Calling the provider directly would use the Responses API,
      // which OpenAI-style proxies and gateways often do not offer.
      return createOpenAI({ ...base, apiKey: apiKey! }).chat(spec.modelId);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: base.baseURL!,
        ...(apiKey === null ? {} : { apiKey }),
        // Without it, streamed answers from these servers carry no token usage, and the token
        // bound and the job's usage would read zero.
        includeUsage: true,
      })(spec.modelId);
  }
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

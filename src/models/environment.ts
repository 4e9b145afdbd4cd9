// Which environment variables configure each provider. This module never reads process.env: the
// caller (src/config) reads them once at start and passes the values in as ProviderCredentials.
import type { ModelProvider } from './model-spec.ts';

export interface ProviderCredentials {
  apiKey?: string | null;
  /** The API's base URL, up to and including /v1 (e.g. http://localhost:11434/v1 for Ollama). */
  baseURL?: string | null;
}

export interface ProviderVariables {
  /** Variable holding the API key, and whether the provider cannot work without it. */
  apiKey: { name: string; required: boolean; description: string };
  baseURL: { name: string; required: boolean; description: string };
}

export const PROVIDER_VARIABLES: Record<ModelProvider, ProviderVariables> = {
  anthropic: {
    apiKey: { name: 'ANTHROPIC_API_KEY', required: true, description: 'API key for anthropic:* models.' },
    baseURL: {
      name: 'ANTHROPIC_BASE_URL',
      required: false,
      description: 'Base URL of the Anthropic Messages API (default https://api.anthropic.com/v1).',
    },
  },
  openai: {
    apiKey: { name: 'OPENAI_API_KEY', required: true, description: 'API key for openai:* models.' },
    baseURL: {
      name: 'OPENAI_BASE_URL',
      required: false,
      description: 'Base URL of the OpenAI Chat Completions API (default https://api.openai.com/v1).',
    },
  },
  'openai-compatible': {
    apiKey: {
      name: 'OPENAI_COMPATIBLE_API_KEY',
      required: false,
      description:
        'API key for openai-compatible:* models, when the server wants one (OpenRouter does; Ollama does not).',
    },
    baseURL: {
      name: 'OPENAI_COMPATIBLE_BASE_URL',
      required: true,
      description:
        'Base URL of an OpenAI-compatible Chat Completions server, e.g. http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM), http://localhost:1234/v1 (LM Studio), https://openrouter.ai/api/v1.',
    },
  },
};

/** The variable names for a provider, required ones first. */
export function providerVariableNames(provider: ModelProvider): string[] {
  const { apiKey, baseURL } = PROVIDER_VARIABLES[provider];
  return [apiKey, baseURL].sort((a, b) => Number(b.required) - Number(a.required)).map((v) => v.name);
}

/**
 * Every model-related variable with its description. src/config/variables.ts declares them, for
 * the configuration docs and --help, from PROVIDER_VARIABLES.
 */
export function modelEnvironmentVariables(): Record<string, string> {
  const all: Record<string, string> = {};
  for (const vars of Object.values(PROVIDER_VARIABLES)) {
    all[vars.apiKey.name] = vars.apiKey.description;
    all[vars.baseURL.name] = vars.baseURL.description;
  }
  return all;
}

/**
 * Picks each provider's credentials out of an environment the caller passes (the config module
 * passes process.env); blank values count as unset.
 */
export function credentialsFromEnvironment(
  env: Record<string, string | undefined>,
): Record<ModelProvider, ProviderCredentials> {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  const result = {} as Record<ModelProvider, ProviderCredentials>;
  for (const [provider, vars] of Object.entries(PROVIDER_VARIABLES) as [ModelProvider, ProviderVariables][]) {
    result[provider] = { apiKey: read(vars.apiKey.name), baseURL: read(vars.baseURL.name) };
  }
  return result;
}

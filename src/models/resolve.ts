// Which model a job uses: the project's own, else the server default; and with which key: the
// project's stored key, else the server's for that provider.

import type { ProviderCredentials } from './environment.ts';
import { modelNotConfigured } from './errors.ts';
import type { ModelProvider } from './model-spec.ts';
import { chosenModel, parseModelSpec } from './model-spec.ts';
import { createModel, type ModelOptions, type ResolvedModel } from './providers.ts';

export interface ModelSelection {
  /** The project's model (provider:model), or null to use the server default. */
  projectModel: string | null;
  /** The server default (DOCWRIGHT_MODEL), or null. */
  defaultModel: string | null;
  /** The server's credentials per provider, read from the environment by the caller. */
  serverCredentials: Partial<Record<ModelProvider, ProviderCredentials>>;
  /** The project's stored model API key; overrides the server's. */
  projectApiKey?: string | null;
  /** The project's own base URL for its provider; overrides the server's. */
  projectBaseURL?: string | null;
}

export function resolveModel(selection: ModelSelection, options: ModelOptions = {}): ResolvedModel {
  const written = chosenModel(selection.projectModel, selection.defaultModel);
  if (written === null) {
    throw modelNotConfigured(
      "No model is configured: set DOCWRIGHT_MODEL on the server (written provider:model, e.g. anthropic:claude-sonnet-4-5) with its provider key (ANTHROPIC_API_KEY, OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL), or set the project's model.",
    );
  }
  const spec = parseModelSpec(written);
  const server = selection.serverCredentials[spec.provider] ?? {};
  const credentials: ProviderCredentials = {
    apiKey: selection.projectApiKey?.trim() || server.apiKey || null,
    baseURL: selection.projectBaseURL?.trim() || server.baseURL || null,
  };
  return createModel(spec, credentials, options);
}

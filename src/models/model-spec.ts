// A model as docwright configures it: written provider:model (e.g. anthropic:claude-sonnet-4-5),
// in DOCWRIGHT_MODEL for the server default or in a project's model field.
import { modelNotConfigured } from './errors.ts';

export const MODEL_PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ModelSpec {
  provider: ModelProvider;
  /** The provider's own model id; may itself contain colons (e.g. ollama's llama3.1:8b). */
  modelId: string;
}

/**
 * The model a project's jobs run with, as written: the project's own, else the server default
 * (DOCWRIGHT_MODEL); null when neither is set, and the job cannot run.
 */
export function chosenModel(projectModel: string | null, defaultModel: string | null): string | null {
  return projectModel?.trim() || defaultModel?.trim() || null;
}

export function isModelProvider(name: string): name is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(name);
}

/**
 * Reads provider:model. Only the first colon separates the two, because model ids of
 * OpenAI-compatible servers often carry a tag after a colon (ollama: "qwen2.5-coder:7b").
 */
export function parseModelSpec(written: string): ModelSpec {
  const text = written.trim();
  const colon = text.indexOf(':');
  const provider = colon < 0 ? '' : text.slice(0, colon);
  const modelId = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (colon <= 0 || modelId === '') {
    throw modelNotConfigured(
      `The model "${text}" is not written provider:model (e.g. anthropic:claude-sonnet-4-5, openai:gpt-4.1, openai-compatible:llama3.1).`,
    );
  }
  if (!isModelProvider(provider)) {
    throw modelNotConfigured(
      `Unknown model provider "${provider}" in "${text}"; known providers: ${MODEL_PROVIDERS.join(', ')}.`,
    );
  }
  return { provider, modelId };
}

export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.modelId}`;
}

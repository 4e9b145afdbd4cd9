// Shared bits of the model tests: a small real tool, and models pointed at the scripted server.
import { jsonSchema, tool } from 'ai';
import type { ModelProvider } from '../../src/models/model-spec.ts';
import type { ModelOptions, ResolvedModel } from '../../src/models/providers.ts';
import { resolveModel } from '../../src/models/resolve.ts';
import type { ScriptedLlmServer } from '../stand-ins/scripted-llm-server.ts';

export const TEST_KEY = 'sk-test-0123456789abcdef';

/** A model id per provider that the provider packages know, so they log no compatibility warning. */
export const MODEL_IDS: Record<ModelProvider, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
  'openai-compatible': 'llama3.1:8b',
};

export const PROVIDERS: ModelProvider[] = ['anthropic', 'openai', 'openai-compatible'];

/** Tiny waits so retry tests do not sleep for real. */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 50 };

export function modelFor(
  server: ScriptedLlmServer,
  provider: ModelProvider,
  options: ModelOptions = { retry: FAST_RETRY },
): ResolvedModel {
  return resolveModel(
    {
      projectModel: `${provider}:${MODEL_IDS[provider]}`,
      defaultModel: null,
      serverCredentials: { [provider]: { apiKey: TEST_KEY, baseURL: server.baseURL } },
    },
    options,
  );
}

/** A real tool that reads from an in-memory "repository". */
export function readFileTool(files: Record<string, string>) {
  return tool({
    description: 'Read a file of the repository.',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    }),
    execute: async ({ path }) => {
      const content = files[path];
      if (content === undefined) throw new Error(`No file ${path}`);
      return content;
    },
  });
}

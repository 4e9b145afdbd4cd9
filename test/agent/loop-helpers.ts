// Small real tools over an in-memory repository, for the loop tests (the real file tools live in
// src/agent/tools and have their own tests).
import { jsonSchema, type ToolSet, tool } from 'ai';

export function memoryRepositoryTools(files: Record<string, string>): ToolSet {
  return {
    read_file: tool({
      description: 'Read a file.',
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      }),
      execute: async ({ path }) => {
        const content = files[path];
        if (content === undefined) throw new Error(`read_file: no file at ${path}`);
        return content;
      },
    }),
    edit_file: tool({
      description: 'Replace old text by new text in a file.',
      inputSchema: jsonSchema<{ path: string; old_text: string; new_text: string }>({
        type: 'object',
        properties: { path: { type: 'string' }, old_text: { type: 'string' }, new_text: { type: 'string' } },
        required: ['path', 'old_text', 'new_text'],
      }),
      execute: async ({ path, old_text, new_text }) => {
        const content = files[path];
        if (content === undefined) throw new Error(`edit_file: no file at ${path}`);
        if (!content.includes(old_text)) throw new Error(`edit_file: the old text is not in ${path}`);
        files[path] = content.replace(old_text, new_text);
        return `edited ${path}`;
      },
    }),
    finish: tool({
      description: 'End the work with a title and a summary.',
      inputSchema: jsonSchema<{ title: string; summary: string }>({
        type: 'object',
        properties: { title: { type: 'string' }, summary: { type: 'string' } },
        required: ['title', 'summary'],
      }),
      execute: async () => 'done',
    }),
  };
}

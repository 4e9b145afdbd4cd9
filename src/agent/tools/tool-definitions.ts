// What the model is told about each tool: its description and the JSON schema of its input. The
// descriptions state the rules the guards enforce, so the model does not have to learn them by
// failing.
import type { JSONSchema7 } from 'ai';

export type ToolName =
  | 'list_files'
  | 'read_file'
  | 'search'
  | 'create_file'
  | 'edit_file'
  | 'delete_file'
  | 'move_file'
  | 'check_docs'
  | 'finish';

interface ToolDefinition {
  description: string;
  inputSchema: JSONSchema7;
}

const path = (description: string): JSONSchema7 => ({ type: 'string', description });
const RELATIVE = 'Relative to the repository root, forward slashes, e.g. docs/guide.md.';

export const TOOL_DEFINITIONS: Record<ToolName, ToolDefinition> = {
  list_files: {
    description:
      'List the files of the repository whose paths match a glob, sorted (at most 500). A pattern without "/" matches at any depth ("*.md"); "docs/**" lists everything under docs.',
    inputSchema: {
      type: 'object',
      properties: { pattern: { type: 'string', description: 'A glob; default "**" (every file).' } },
      additionalProperties: false,
    },
  },
  read_file: {
    description:
      'Read a text file, with line numbers. Long files come in slices: pass start_line/end_line (1-based, inclusive) to read a range. Files over 1 MiB and binary files cannot be read.',
    inputSchema: {
      type: 'object',
      properties: {
        path: path(RELATIVE),
        start_line: { type: 'integer', minimum: 1, description: 'First line to show (default 1).' },
        end_line: {
          type: 'integer',
          minimum: 1,
          description: 'Last line to show (default: up to 2000 lines).',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  search: {
    description:
      'Search the repository\'s text files for a regular expression (Perl syntax), like "git grep -n". Answers "path:line: text" lines, at most 100.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'The regular expression.' },
        path_glob: {
          type: 'string',
          description: 'Only search files matching this glob, e.g. "docs/**/*.md".',
        },
        ignore_case: { type: 'boolean', description: 'Match regardless of letter case (default false).' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  create_file: {
    description:
      'Create a new file with the given content (parent directories are created). Refuses to overwrite an existing file: use edit_file for that.',
    inputSchema: {
      type: 'object',
      properties: {
        path: path(RELATIVE),
        content: { type: 'string', description: 'The whole content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  edit_file: {
    description:
      'Replace an exact piece of text in a file with new text. old_text must match the current content exactly (spaces and line breaks included, without line numbers) and occur exactly once; include surrounding lines to make it unique.',
    inputSchema: {
      type: 'object',
      properties: {
        path: path(RELATIVE),
        old_text: { type: 'string', description: 'The exact text to replace.' },
        new_text: { type: 'string', description: 'The text to put in its place (empty to delete it).' },
      },
      required: ['path', 'old_text', 'new_text'],
      additionalProperties: false,
    },
  },
  delete_file: {
    description: 'Delete one file.',
    inputSchema: {
      type: 'object',
      properties: { path: path(RELATIVE) },
      required: ['path'],
      additionalProperties: false,
    },
  },
  move_file: {
    description: 'Move or rename one file. The destination must not exist.',
    inputSchema: {
      type: 'object',
      properties: { from: path(`The file to move. ${RELATIVE}`), to: path(`Its new path. ${RELATIVE}`) },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  },
  check_docs: {
    description:
      'Check the docs the way the site build would: pages parse (Markdown/MDX), front matter, links and #anchors resolve, images exist, the navigation names existing pages and new pages are in it. Reports only problems your changes introduced, each with file:line and a fix. Run it after editing and before finish; fix what it reports.',
    inputSchema: {
      type: 'object',
      properties: {
        paths: {
          type: 'array',
          items: { type: 'string' },
          maxItems: 100,
          description: `Only report problems in these files (${RELATIVE.toLowerCase()}); default: everything your changes can affect.`,
        },
      },
      additionalProperties: false,
    },
  },
  finish: {
    description:
      'Call once when the work is done (or when nothing needs changing). title: a short summary line for the commit and pull request; summary: what changed and why, for the reviewer.',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'One line, under 200 characters.' },
        summary: { type: 'string', description: 'A few sentences or a short list, in Markdown.' },
      },
      required: ['title', 'summary'],
      additionalProperties: false,
    },
  },
};

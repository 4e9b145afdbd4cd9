// The agent's toolbox for one worktree: the plain tool functions behind one entry point that
// serialises calls, turns refusals into answers for the model, and reports an event per call; and
// the same tools as AI SDK tools for the loop. Their output is a ToolResult ({ok, text}); the
// model reads only the text, and the loop tells a refused call by isFailedToolOutput. The loop
// stops on the finish tool; finished() holds what it recorded.
import { jsonSchema, type ToolSet, tool } from 'ai';
import { GitRunner } from '../workspace/git-runner.ts';
import { checkDocsTool } from './check-docs.ts';
import {
  CODE_TOOL_IMPLEMENTATIONS,
  type CodeToolContext,
  type CodeToolName,
  type CodeToolSource,
  codeToolDefinitions,
} from './code-tools.ts';
import { createFileTool } from './create-file.ts';
import { deleteFileTool } from './delete-file.ts';
import { editFileTool } from './edit-file.ts';
import { finishTool } from './finish.ts';
import { DEFAULT_DENY_GLOBS, Guards, isToolRefusal } from './guards.ts';
import { listFiles } from './list-files.ts';
import { moveFileTool } from './move-file.ts';
import { readFileTool } from './read-file.ts';
import { searchTool } from './search.ts';
import {
  type FinishRecord,
  failure,
  type ToolContext,
  type ToolEvent,
  type ToolResult,
} from './tool-context.ts';
import { TOOL_DEFINITIONS, type ToolName } from './tool-definitions.ts';

const IMPLEMENTATIONS: Record<ToolName, (context: ToolContext, input: unknown) => Promise<ToolResult>> = {
  list_files: listFiles,
  read_file: readFileTool,
  search: searchTool,
  create_file: createFileTool,
  edit_file: editFileTool,
  delete_file: deleteFileTool,
  move_file: moveFileTool,
  check_docs: checkDocsTool,
  finish: finishTool,
};

export interface AgentToolsOptions {
  /**
   * The job's worktree: the only directory the tools touch. A promise when the model starts
   * before the worktree is ready: every call waits for it (and fails if it fails).
   */
  root: string | Promise<string>;
  /** The project's deny list (globs); DEFAULT_DENY_GLOBS when not given. .git is always refused. */
  denyGlobs?: readonly string[];
  runner?: GitRunner;
  /** Told about every call (tool, path, ok); for the job's events. Never given file contents. */
  onEvent?: (event: ToolEvent) => void | Promise<void>;
  /** Told the paths a call changed, once it has changed them (the workspace stages them early). */
  onChanged?: (paths: string[]) => void;
  /** The docs checks for check_docs; without it the tool is not offered. */
  checkDocs?: (paths: string[]) => Promise<string>;
  /**
   * The watched code repository at the commit a code_change automation run followed: adds the
   * read-only code tools (code_list, code_read, code_search). Absent for every other job.
   */
  code?: CodeToolSource;
}

export interface AgentToolbox {
  /** The tools for generateText / streamText. */
  tools: ToolSet;
  /** Runs one tool by name, exactly as the model's call would. */
  run(name: string, input: unknown): Promise<ToolResult>;
  /** The finish tool's record, once the agent has called it. */
  finished(): FinishRecord | null;
  /**
   * Every file the tools changed (created, edited, deleted, moved from or to), root-relative and
   * sorted: what JobWorkspace.commit() needs to stage, without scanning the whole tree.
   */
  changedPaths(): string[];
  /** The guards of the worktree, once it is ready. */
  guards(): Promise<Guards>;
}

const MAX_EVENT_TEXT = 200;

/** For the loop: whether a tool's output is a refusal (the call changed nothing). */
export function isFailedToolOutput(_toolName: string, output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { ok?: unknown }).ok === false;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > MAX_EVENT_TEXT ? `${line.slice(0, MAX_EVENT_TEXT)}…` : line;
}

/** The path the model asked about, for an event when the call failed before normalising it. */
function requestedPath(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value.slice(0, MAX_EVENT_TEXT) : undefined;
}

/** File-system errors the model may cause or at least should hear about (e.g. a full disk). */
function fileSystemMessage(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  return `The file system refused the operation (${code}).`;
}

export async function createAgentTools(options: AgentToolsOptions): Promise<AgentToolbox> {
  const denyGlobs = options.denyGlobs ?? DEFAULT_DENY_GLOBS;
  // A bad deny list is refused now, not at the first call.
  Guards.rulesOnly(denyGlobs);
  const git = options.runner ?? new GitRunner();
  let context: ToolContext | null = null;
  const ready = Promise.resolve(options.root).then(async (root): Promise<ToolContext> => {
    context = { guards: await Guards.create(root, denyGlobs), git, finish: null };
    if (options.checkDocs) context.checkDocs = options.checkDocs;
    return context;
  });
  // A worktree that never comes is the caller's failure to report; no call may be left to see it.
  ready.catch(() => undefined);
  // The AI SDK runs the tool calls of one step in parallel; files are changed one call at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const changedPaths = new Set<string>();

  const codeContext: CodeToolContext | null = options.code
    ? { source: options.code, git, rules: Guards.rulesOnly(denyGlobs) }
    : null;
  const codeTool = (name: string) =>
    codeContext !== null && Object.hasOwn(CODE_TOOL_IMPLEMENTATIONS, name)
      ? (input: unknown) => CODE_TOOL_IMPLEMENTATIONS[name as CodeToolName](codeContext, input)
      : null;

  const execute = async (name: string, input: unknown): Promise<ToolResult> => {
    const implementation = Object.hasOwn(IMPLEMENTATIONS, name) ? IMPLEMENTATIONS[name as ToolName] : null;
    const code = codeTool(name);
    if (!implementation && !code) return failure(`There is no tool named "${name}".`);
    const toolContext = await ready;
    let result: ToolResult;
    try {
      result = code ? await code(input) : await implementation!(toolContext, input);
    } catch (error) {
      const message = isToolRefusal(error) ? error.message : fileSystemMessage(error);
      if (message === null) throw error;
      const path = requestedPath(input, name === 'move_file' ? 'from' : 'path');
      result = failure(message, path, name === 'move_file' ? requestedPath(input, 'to') : undefined);
    }
    for (const path of result.changed ?? []) changedPaths.add(path);
    if (result.changed?.length) options.onChanged?.(result.changed);
    const event: ToolEvent = { tool: name, ok: result.ok };
    if (result.path !== undefined) event.path = result.path;
    if (result.to !== undefined) event.to = result.to;
    if (!result.ok) event.error = firstLine(result.text);
    await options.onEvent?.(event);
    return result;
  };

  const run = (name: string, input: unknown): Promise<ToolResult> => {
    const next = queue.then(() => execute(name, input));
    queue = next.catch(() => undefined);
    return next;
  };

  const tools: ToolSet = {};
  const definitions = {
    ...TOOL_DEFINITIONS,
    ...(options.code ? codeToolDefinitions(options.code) : {}),
  };
  for (const [name, definition] of Object.entries(definitions)) {
    if (name === 'check_docs' && !options.checkDocs) continue;
    tools[name] = tool({
      description: definition.description,
      inputSchema: jsonSchema<Record<string, unknown>>(definition.inputSchema),
      execute: (input: Record<string, unknown>) => run(name, input),
      // The model reads the text; a refusal goes as an error result, which providers mark as such
      // (Anthropic's is_error), so the model knows its call did nothing.
      toModelOutput: ({ output }) =>
        output.ok ? { type: 'text', value: output.text } : { type: 'error-text', value: output.text },
    });
  }

  return {
    tools,
    run,
    finished: () => context?.finish ?? null,
    changedPaths: () => [...changedPaths].sort(),
    guards: async () => (await ready).guards,
  };
}

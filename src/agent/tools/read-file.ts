// read_file: a text file's lines, numbered, optionally a range of them. Long files come a slice at
// a time: the answer says which lines it shows and how to ask for the next ones.
import { asInput, optionalLineNumber, requiredString } from './arguments.ts';
import { MAX_OUTPUT_CHARS, ToolRefusal } from './guards.ts';
import { numberLines, readTextFile, splitLines } from './text-file.ts';
import { success, type ToolContext, type ToolResult } from './tool-context.ts';

/** Lines shown per call when no end_line is given. */
export const MAX_READ_LINES = 2000;

export async function readFileTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const path = requiredString(input, 'path');
  const startLine = optionalLineNumber(input, 'start_line') ?? 1;
  const endLine = optionalLineNumber(input, 'end_line');
  const { file, text } = await readTextFile(context.guards, path);
  return success(numberedSlice(file.relative, text, startLine, endLine, 'read_file'), file.relative);
}

/**
 * Lines startLine..endLine of a file's text, numbered, under the output limit, with a header
 * saying which lines they are and a hint naming `tool` when more follow. Shared with code_read.
 */
export function numberedSlice(
  relative: string,
  text: string,
  startLine: number,
  endLine: number | undefined,
  tool: string,
): string {
  const lines = splitLines(text);
  const total = lines.length;
  if (total === 0) return `${relative} is empty (0 lines).`;
  if (startLine > total)
    throw new ToolRefusal(`${relative} has ${total} lines; start_line ${startLine} is past the end.`);
  if (endLine !== undefined && endLine < startLine)
    throw new ToolRefusal(`end_line (${endLine}) is before start_line (${startLine}).`);
  let last = Math.min(endLine ?? startLine + MAX_READ_LINES - 1, total);
  // Keep the answer under the output limit by showing fewer lines, never half a line.
  let body = numberLines(lines.slice(startLine - 1, last), startLine);
  while (body.length > MAX_OUTPUT_CHARS && last > startLine) {
    last = startLine + Math.max(0, Math.floor((last - startLine) / 2));
    body = numberLines(lines.slice(startLine - 1, last), startLine);
  }
  const header = `${relative} (lines ${startLine}-${last} of ${total})`;
  // The hint only when the answer stops short of what was asked (all of it, or up to end_line).
  const wanted = Math.min(endLine ?? total, total);
  const more =
    last < wanted ? `\n[more lines follow: call ${tool} with start_line=${last + 1} to continue]` : '';
  return `${header}\n${body}${more}`;
}

// create_file: a new file with the given content. It never overwrites: an existing file (or link,
// or directory) at the path is a refusal that points to edit_file.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asInput, requiredString } from './arguments.ts';
import { ToolRefusal } from './guards.ts';
import { splitLines } from './text-file.ts';
import { changed, success, type ToolContext, type ToolResult } from './tool-context.ts';

export async function createFileTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const path = requiredString(input, 'path');
  const content = requiredString(input, 'content');
  const file = await context.guards.resolve(path, { followFinal: false });
  context.guards.checkWritableContent(file.relative, content);
  try {
    await mkdir(dirname(file.absolute), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new ToolRefusal(
        `"${file.relative}" cannot be created: a file stands where a directory is needed.`,
      );
    throw error;
  }
  try {
    // "wx" (O_CREAT | O_EXCL) fails on any existing entry, a symbolic link included.
    await writeFile(file.absolute, content, { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new ToolRefusal(
        `"${file.relative}" already exists; create_file never overwrites. Use edit_file to change it, or read_file to see it.`,
      );
    if (code === 'ENOTDIR' || code === 'EISDIR')
      throw new ToolRefusal(
        `"${file.relative}" cannot be created: a file stands where a directory is needed.`,
      );
    throw error;
  }
  return changed(
    success(`Created ${file.relative} (${splitLines(content).length} lines).`, file.relative),
    context.guards.relativeOf(file.absolute),
  );
}

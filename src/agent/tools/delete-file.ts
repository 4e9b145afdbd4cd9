// delete_file: removes one file (a symbolic link is removed itself, its target untouched).
// Directories are refused: deleting many files at once is not something to do by accident.
import { lstat, unlink } from 'node:fs/promises';
import { asInput, requiredString } from './arguments.ts';
import { ToolRefusal } from './guards.ts';
import { changed, success, type ToolContext, type ToolResult } from './tool-context.ts';

export async function deleteFileTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const file = await context.guards.resolve(requiredString(input, 'path'), { followFinal: false });
  let isDirectory: boolean;
  try {
    isDirectory = (await lstat(file.absolute)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ToolRefusal(`There is no file "${file.relative}" to delete.`);
    throw error;
  }
  if (isDirectory)
    throw new ToolRefusal(`"${file.relative}" is a directory; delete the files in it one by one.`);
  await unlink(file.absolute);
  return changed(
    success(`Deleted ${file.relative}.`, file.relative),
    context.guards.relativeOf(file.absolute),
  );
}

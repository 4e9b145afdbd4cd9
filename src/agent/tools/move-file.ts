// move_file: renames one file (git sees a rename). The destination must not exist: moving never
// overwrites. Both ends pass the guards, so nothing moves into or out of a forbidden place.
import { lstat, mkdir, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asInput, requiredString } from './arguments.ts';
import { ToolRefusal } from './guards.ts';
import { changed, success, type ToolContext, type ToolResult } from './tool-context.ts';

async function kind(path: string): Promise<'missing' | 'directory' | 'file'> {
  try {
    return (await lstat(path)).isDirectory() ? 'directory' : 'file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

export async function moveFileTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const from = await context.guards.resolve(requiredString(input, 'from'), {
    followFinal: false,
    what: 'source path',
  });
  const to = await context.guards.resolve(requiredString(input, 'to'), {
    followFinal: false,
    what: 'destination path',
  });
  const source = await kind(from.absolute);
  if (source === 'missing') throw new ToolRefusal(`There is no file "${from.relative}" to move.`);
  if (source === 'directory')
    throw new ToolRefusal(`"${from.relative}" is a directory; move the files in it one by one.`);
  if ((await kind(to.absolute)) !== 'missing')
    throw new ToolRefusal(
      `"${to.relative}" already exists; move_file never overwrites. Choose another name or delete it first.`,
    );
  try {
    await mkdir(dirname(to.absolute), { recursive: true });
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'EEXIST' ||
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    )
      throw new ToolRefusal(`"${to.relative}" cannot be created: a file stands where a directory is needed.`);
    throw error;
  }
  await rename(from.absolute, to.absolute);
  return changed(
    success(`Moved ${from.relative} to ${to.relative}.`, from.relative, to.relative),
    context.guards.relativeOf(from.absolute),
    context.guards.relativeOf(to.absolute),
  );
}

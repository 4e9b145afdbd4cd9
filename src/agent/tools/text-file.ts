// Reading a file the way read_file and edit_file both need it: through the guards (inside the
// worktree, allowed, a regular file, not too large, text) and decoded as UTF-8.
import { readFile, stat } from 'node:fs/promises';
import { type Guards, type ResolvedPath, ToolRefusal } from './guards.ts';

export async function readTextFile(
  guards: Guards,
  path: string,
): Promise<{ file: ResolvedPath; text: string }> {
  const file = await guards.resolve(path, { followFinal: true });
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file.absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new ToolRefusal(`There is no file "${file.relative}". Use list_files to see which files exist.`);
    throw error;
  }
  if (info.isDirectory())
    throw new ToolRefusal(
      `"${file.relative}" is a directory; use list_files with "${file.relative}/**" to see its files.`,
    );
  if (!info.isFile()) throw new ToolRefusal(`"${file.relative}" is not a regular file.`);
  guards.checkReadableSize(file.relative, info.size);
  return { file, text: guards.decodeText(file.relative, await readFile(file.absolute)) };
}

/** The lines of a text, without the empty string a final newline would add. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines numbered from `first`, right-aligned like `cat -n`. */
export function numberLines(lines: readonly string[], first: number, maxLineChars = 2000): string {
  const width = String(first + lines.length - 1).length;
  return lines
    .map((line, i) => {
      const shown =
        line.length > maxLineChars
          ? `${line.slice(0, maxLineChars)}… [line cut at ${maxLineChars} characters]`
          : line;
      return `${String(first + i).padStart(width)}\t${shown.replace(/\r$/, '')}`;
    })
    .join('\n');
}

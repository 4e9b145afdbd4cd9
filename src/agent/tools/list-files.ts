// list_files: the repository's files matching a glob, as git sees them (tracked files plus new
// ones, without ignored ones such as node_modules), sorted, at most MAX_LISTED.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { asInput, optionalString } from './arguments.ts';
import { success, type ToolContext, type ToolResult } from './tool-context.ts';
import { toolGit } from './tool-git.ts';

export const MAX_LISTED = 500;

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every file of the worktree the agent may see: tracked or new, not ignored, not deleted, allowed. */
export async function visibleFiles(context: ToolContext): Promise<string[]> {
  const result = await toolGit(context, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (result.exitCode !== 0) throw new Error(`git ls-files failed: ${result.stderr.trim()}`);
  const paths = [...new Set(result.stdout.split('\0').filter(Boolean))].filter((p) =>
    context.guards.isAllowed(p),
  );
  // The index still lists files deleted in this job until they are committed.
  const present = await Promise.all(paths.map((p) => exists(join(context.guards.root, p))));
  return paths.filter((_, i) => present[i]).sort();
}

export async function listFiles(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const given = optionalString(input, 'pattern') ?? '**';
  const glob = context.guards.checkGlob(given);
  const files = await visibleFiles(context);
  const isMatch = picomatch(glob, { dot: true });
  let matches = files.filter((file) => isMatch(file));
  // A directory name means its contents: "docs" lists docs/**.
  if (matches.length === 0 && !/[*?[{]/.test(given)) {
    const prefix = `${given.replace(/^\.\//, '').replace(/\/+$/, '')}/`;
    matches = files.filter((file) => file.startsWith(prefix));
  }
  if (matches.length === 0) {
    if (files.length === 0) return success('The repository has no files yet.');
    return success(
      `No files match "${given}". A pattern without "/" matches at any depth ("*.md"); use "docs/**" for everything under docs.`,
    );
  }
  const shown = matches.slice(0, MAX_LISTED).join('\n');
  if (matches.length <= MAX_LISTED) return success(`${shown}\n(${matches.length} files)`);
  return success(
    `${shown}\n[${matches.length - MAX_LISTED} more files not shown: narrow the pattern, e.g. "docs/guide/**" or "*.md"]`,
  );
}

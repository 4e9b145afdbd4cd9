// Every rule that keeps the agent's tools inside the job's worktree, in one place. A tool asks
// here before it touches a path or hands back content; a refusal is a ToolRefusal whose message
// is written for the model, so it can correct itself.
//
// Paths: relative to the worktree root, resolved lexically first (no absolute paths, nothing that
// climbs out with ".."), then physically (the real path of the nearest existing ancestor must be
// inside the root, so a symlink cannot lead out), and both the path as asked and the path as
// resolved are checked against the rules: never .git (the repository's own data: hooks, config),
// never a path matching the project's deny list. Content: files over 1 MiB and binary files are
// neither read nor edited; nothing over 1 MiB is written. Long outputs are cut with a hint.
import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, posix, relative as relativePath, sep } from 'node:path';
import picomatch from 'picomatch';

/** Files larger than this are not read or edited, and no write may produce one. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Binary detection looks for a NUL byte in this many leading bytes (as git does). */
export const BINARY_SNIFF_BYTES = 8 * 1024;
/** The deny list of a project that has not set its own: CI workflows run with the repository's secrets. */
export const DEFAULT_DENY_GLOBS: readonly string[] = ['.github/workflows/**'];

export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolRefusal';
  }
}

export function isToolRefusal(error: unknown): error is ToolRefusal {
  return error instanceof ToolRefusal;
}

/** .git in any letter case, also with the trailing dots and spaces Windows file systems drop. */
const GIT_DIR_NAME = /^\.git[. ]*$/i;

export interface ResolvedPath {
  /** Normalised path relative to the root, forward slashes: what messages and events show. */
  relative: string;
  /** The absolute path to operate on. */
  absolute: string;
}

export class Guards {
  /** The worktree root, as a real path (symlinks resolved). */
  readonly root: string;
  readonly denyGlobs: readonly string[];
  private readonly denied: (path: string) => boolean;

  private constructor(root: string, denyGlobs: readonly string[]) {
    this.root = root;
    this.denyGlobs = denyGlobs;
    this.denied = denyGlobs.length > 0 ? picomatch([...denyGlobs], { dot: true }) : () => false;
  }

  /** Guards for the worktree at `root`; `denyGlobs` is the project's list (default: DEFAULT_DENY_GLOBS). */
  static async create(root: string, denyGlobs: readonly string[] = DEFAULT_DENY_GLOBS): Promise<Guards> {
    checkDenyGlobs(denyGlobs);
    return new Guards(await realpath(root), denyGlobs);
  }

  /**
   * The path and content rules alone, for files read without a worktree (the repository's
   * instructions, read from the mirror): the same deny list, size limit and text check. Paths
   * cannot be resolved through it (there is no root; a NUL makes any attempt fail).
   */
  static rulesOnly(
    denyGlobs: readonly string[] = DEFAULT_DENY_GLOBS,
  ): Pick<
    Guards,
    'isAllowed' | 'checkRequestedPath' | 'checkReadableSize' | 'decodeText' | 'checkGlob' | 'denyGlobs'
  > {
    checkDenyGlobs(denyGlobs);
    return new Guards('\0', denyGlobs);
  }

  /**
   * The normalised relative form of a path the model gave, or a refusal: empty, absolute, with a
   * NUL or backslash, climbing out of the root, naming .git or a denied path.
   */
  checkRequestedPath(input: string, what = 'path'): string {
    if (input.length === 0) throw new ToolRefusal(`The ${what} is empty.`);
    if (input.includes('\0')) throw new ToolRefusal(`The ${what} contains a NUL character.`);
    if (input.includes('\\'))
      throw new ToolRefusal(
        `The ${what} "${input}" contains a backslash; use forward slashes (docs/page.md).`,
      );
    if (isAbsolute(input))
      throw new ToolRefusal(
        `The ${what} "${input}" is absolute. Paths are relative to the repository root, e.g. docs/index.md.`,
      );
    const normal = posix.normalize(input).replace(/\/+$/, '');
    if (normal === '..' || normal.startsWith('../'))
      throw new ToolRefusal(
        `The ${what} "${input}" leads outside the repository; only files inside it can be used.`,
      );
    if (normal === '.' || normal === '')
      throw new ToolRefusal(`The ${what} "${input}" is the repository root, not a file.`);
    this.checkRules(normal, input);
    return normal;
  }

  /** Whether a repository-relative path passes the .git and deny-list rules (for filtering listings). */
  isAllowed(relative: string): boolean {
    try {
      this.checkRules(relative, relative);
      return true;
    } catch {
      return false;
    }
  }

  private checkRules(relative: string, asGiven: string): void {
    const parts = relative.split('/');
    if (parts.some((part) => GIT_DIR_NAME.test(part)))
      throw new ToolRefusal(`"${asGiven}" is inside .git, git's own data; it cannot be read or changed.`);
    for (let i = 1; i <= parts.length; i++) {
      if (this.denied(parts.slice(0, i).join('/')))
        throw new ToolRefusal(
          `"${asGiven}" is on this project's deny list (${this.denyGlobs.join(', ')}); it cannot be read or changed.`,
        );
    }
  }

  /**
   * Resolves a requested path to one inside the worktree. Missing components are allowed (a file
   * to create): the nearest existing ancestor decides where the path really is. A symbolic link
   * that leads outside (or nowhere) is refused for every operation. `followFinal` says whether a
   * link at the path itself is then followed (read, edit) or is itself the object (delete, move:
   * the link is removed or renamed, its target untouched).
   */
  async resolve(input: string, options: { followFinal: boolean; what?: string }): Promise<ResolvedPath> {
    const relative = this.checkRequestedPath(input, options.what);
    const parts = relative.split('/');
    const followed = await this.physical(input, parts, parts.length);
    if (options.followFinal) return { relative, absolute: followed };
    const parent = await this.physical(input, parts, parts.length - 1);
    return { relative, absolute: [parent, parts[parts.length - 1]].join(sep) };
  }

  /**
   * The physical path of the first `count` components of `parts`: the real path of their nearest
   * existing ancestor (symlinks resolved), which must be inside the root and pass the rules, plus
   * the components that do not exist yet.
   */
  private async physical(input: string, parts: readonly string[], count: number): Promise<string> {
    let existing = count;
    let real: string | null = null;
    for (; existing >= 0; existing--) {
      const candidate = [this.root, ...parts.slice(0, existing)].join(sep);
      try {
        real = await realpath(candidate);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A dangling symlink: its target does not exist, but where it points still matters.
        if (code === 'ENOENT' && (await isSymlink(candidate)))
          throw new ToolRefusal(
            `"${input}" goes through a symbolic link to a missing target; it cannot be used.`,
          );
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      }
    }
    if (real === null) throw new ToolRefusal(`"${input}" cannot be resolved inside the repository.`);
    if (real !== this.root && !real.startsWith(this.root + sep))
      throw new ToolRefusal(
        `"${input}" leads outside the repository through a symbolic link; it cannot be used.`,
      );
    const rest = parts.slice(existing, count);
    const realRelative = [relativePath(this.root, real).split(sep).join('/'), ...rest]
      .filter(Boolean)
      .join('/');
    if (realRelative !== parts.slice(0, count).join('/')) this.checkRules(realRelative, input);
    return [real, ...rest].join(sep);
  }

  /** The root-relative form of an absolute path this module resolved. */
  relativeOf(absolute: string): string {
    return relativePath(this.root, absolute).split(sep).join('/');
  }

  /** Refuses a file too large to read or edit, given its size in bytes. */
  checkReadableSize(relative: string, size: number): void {
    if (size > MAX_FILE_BYTES)
      throw new ToolRefusal(
        `"${relative}" is ${formatBytes(size)}; files over ${formatBytes(MAX_FILE_BYTES)} are not read or edited.`,
      );
  }

  /** The text of a file's bytes, or a refusal when it is binary (NUL bytes, invalid UTF-8). */
  decodeText(relative: string, bytes: Buffer): string {
    this.checkReadableSize(relative, bytes.length);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0))
      throw new ToolRefusal(`"${relative}" is a binary file; only text files can be read or edited.`);
    try {
      // ignoreBOM keeps a byte-order mark in the text, so an edit writes it back.
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolRefusal(
        `"${relative}" is not valid UTF-8 text (a binary file?); it cannot be read or edited.`,
      );
    }
  }

  /** Refuses content too large to write. */
  checkWritableContent(relative: string, content: string): void {
    const size = Buffer.byteLength(content, 'utf8');
    if (size > MAX_FILE_BYTES)
      throw new ToolRefusal(
        `The new content of "${relative}" would be ${formatBytes(size)}; files over ${formatBytes(MAX_FILE_BYTES)} cannot be written.`,
      );
  }

  /**
   * A glob the model gave for listing or searching: relative, inside the root. Without a slash it
   * matches at any depth (like .gitignore): "*.md" means every Markdown file.
   */
  checkGlob(input: string): string {
    if (input.length === 0) throw new ToolRefusal('The glob is empty.');
    if (input.includes('\0') || input.includes('\\'))
      throw new ToolRefusal('The glob contains a NUL or a backslash; use forward slashes.');
    if (isAbsolute(input))
      throw new ToolRefusal(`The glob "${input}" is absolute; globs are relative to the repository root.`);
    if (input.split('/').some((part) => part === '..'))
      throw new ToolRefusal(
        `The glob "${input}" contains "..": only files inside the repository can be listed.`,
      );
    const trimmed = input.replace(/^\.\//, '').replace(/\/+$/, '');
    return trimmed.includes('/') ? trimmed : `**/${trimmed}`;
  }
}

function checkDenyGlobs(denyGlobs: readonly string[]): void {
  for (const glob of denyGlobs)
    if (typeof glob !== 'string' || glob.length === 0)
      throw new Error('Deny-list entries must be non-empty globs');
}

async function isSymlink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** Longest tool output handed back to the model, in characters. */
export const MAX_OUTPUT_CHARS = 40_000;

/** `text` cut to `max` characters at a line end, with `hint` saying how to see the rest. */
export function truncateOutput(text: string, hint: string, max = MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  return `${text.slice(0, cut > max / 2 ? cut : max)}\n[output truncated: ${hint}]`;
}

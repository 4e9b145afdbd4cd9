// search: a regular expression over the repository's text files with `git grep` (tracked and new
// files, ignored and binary files skipped), at most MAX_MATCHES lines. Perl-compatible syntax
// (\d, \s, \b, lookarounds) because that is what models write; POSIX extended when this git was
// built without PCRE.

import type { GitResult } from '../workspace/git-runner.ts';
import { asInput, optionalBoolean, optionalString, requiredString } from './arguments.ts';
import { type Guards, ToolRefusal } from './guards.ts';
import { success, type ToolContext, type ToolResult } from './tool-context.ts';
import { toolGit } from './tool-git.ts';

export const MAX_MATCHES = 100;
const MAX_MATCH_CHARS = 240;
const MAX_PATTERN_CHARS = 1000;
/** git grep stops being read after this much output; far more than MAX_MATCHES lines need. */
const MAX_GREP_BYTES = 512 * 1024;

let pcreMissing = false;

/** Where a search runs: the worktree (new files included), or a commit of a bare repository. */
export interface SearchTarget {
  git(args: readonly string[], maxStdoutBytes: number): Promise<GitResult>;
  /** The commit to search; null for the worktree. */
  commit: string | null;
  rules: Pick<Guards, 'checkGlob' | 'isAllowed' | 'denyGlobs'>;
  /** The tool's name, for hints. */
  tool: string;
}

async function grep(target: SearchTarget, pattern: string, pathspecs: string[], ignoreCase: boolean) {
  const args = (syntax: string) => [
    'grep',
    '-z',
    '-n',
    '-I',
    '--no-color',
    ...(target.commit === null ? ['--untracked'] : []),
    syntax,
    ...(ignoreCase ? ['-i'] : []),
    '-e',
    pattern,
    ...(target.commit === null ? [] : [target.commit]),
    '--',
    ...pathspecs,
  ];
  if (!pcreMissing) {
    const result = await target.git(args('-P'), MAX_GREP_BYTES);
    if (!/cannot use Perl-compatible regexes|USE_LIBPCRE/i.test(result.stderr)) return result;
    pcreMissing = true;
  }
  return target.git(args('-E'), MAX_GREP_BYTES);
}

export function searchTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  return searchIn(
    {
      git: (args, max) => toolGit(context, args, max),
      commit: null,
      rules: context.guards,
      tool: 'search',
    },
    rawInput,
  );
}

export async function searchIn(target: SearchTarget, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const pattern = requiredString(input, 'pattern');
  const pathGlob = optionalString(input, 'path_glob');
  const ignoreCase = optionalBoolean(input, 'ignore_case') ?? false;
  if (pattern.length === 0) throw new ToolRefusal('The pattern is empty.');
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new ToolRefusal(`The pattern is longer than ${MAX_PATTERN_CHARS} characters.`);
  if (pattern.includes('\0')) throw new ToolRefusal('The pattern contains a NUL character.');

  const pathspecs = [
    ...(pathGlob ? [`:(glob)${target.rules.checkGlob(pathGlob)}`] : []),
    ...target.rules.denyGlobs.map((glob) => `:(exclude,glob)${glob}`),
  ];
  const result = await grep(target, pattern, pathspecs, ignoreCase);
  if (result.exitCode === 1)
    return success(`No matches for /${pattern}/${pathGlob ? ` in ${pathGlob}` : ''}.`);
  if (result.exitCode !== 0) {
    const reason =
      result.stderr
        .replace(/^fatal: /m, '')
        .trim()
        .split('\n')[0] ?? '';
    throw new ToolRefusal(
      `The search failed; check the regular expression. git grep said: ${reason.slice(0, 300)}`,
    );
  }

  const matches: string[] = [];
  let total = 0;
  // A search at a commit names each file "<commit>:path".
  const prefix = target.commit === null ? '' : `${target.commit}:`;
  // -z: "path\0line\0text\n" per match, so paths with ":" stay unambiguous.
  for (const record of result.stdout.split('\n')) {
    const [named, line, ...rest] = record.split('\0');
    const path = named?.startsWith(prefix) ? named.slice(prefix.length) : named;
    if (!path || !line || !target.rules.isAllowed(path)) continue;
    total++;
    if (matches.length >= MAX_MATCHES) continue;
    const text = rest.join('\0');
    const shown = text.length > MAX_MATCH_CHARS ? `${text.slice(0, MAX_MATCH_CHARS)}…` : text;
    matches.push(`${path}:${line}: ${shown}`);
  }
  if (matches.length === 0) return success(`No matches for /${pattern}/.`);
  const cut = total > matches.length || result.truncated;
  const footer = cut
    ? `\n[more matches not shown: narrow the pattern or pass path_glob, e.g. "${target.commit === null ? 'docs/guide/**' : 'src/**'}"]`
    : `\n(${total} matching lines)`;
  return success(matches.join('\n') + footer);
}

// The code tools: read-only access to the watched code repository at the commit a code_change
// automation run followed (its merged pull request or push), for jobs that run started. They read
// the code mirror (src/agent/code-source) with git plumbing at that commit (ls-tree, cat-file,
// grep <commit>), so no worktree is made and nothing can be changed; a later commit on the code
// host changes nothing they see. The docs tools' rules apply: paths relative to the repository
// root, nothing outside it, never .git, never a path on the project's deny list, files over 1 MiB
// and binary files not read, outputs capped. They never touch the network (the commit's trees
// and files were fetched whole before the job started).
import type { JSONSchema7 } from 'ai';
import picomatch from 'picomatch';
import { buildGitEnv } from '../workspace/git-env.ts';
import type { GitResult, GitRunner } from '../workspace/git-runner.ts';
import { asInput, optionalLineNumber, optionalString, requiredString } from './arguments.ts';
import { type Guards, MAX_FILE_BYTES, ToolRefusal } from './guards.ts';
import { MAX_LISTED } from './list-files.ts';
import { numberedSlice } from './read-file.ts';
import { searchIn } from './search.ts';
import { success, type ToolResult } from './tool-context.ts';

/** The watched repository at one commit, as the code tools see it. */
export interface CodeToolSource {
  /** The bare code mirror holding the commit. */
  mirrorPath: string;
  commit: string;
  /** owner/name, for the descriptions and answers. */
  repository: string;
}

export interface CodeToolContext {
  source: CodeToolSource;
  git: GitRunner;
  rules: Pick<
    Guards,
    'isAllowed' | 'checkRequestedPath' | 'checkReadableSize' | 'decodeText' | 'checkGlob' | 'denyGlobs'
  >;
}

export type CodeToolName = 'code_list' | 'code_read' | 'code_search';

const RELATIVE = 'Relative to the code repository root, forward slashes, e.g. src/index.ts.';
const READ_ONLY =
  "Read-only: this is the product's source code (the watched code repository) at the commit the change was merged as, not the docs repository you edit.";

export function codeToolDefinitions(
  source: CodeToolSource,
): Record<CodeToolName, { description: string; inputSchema: JSONSchema7 }> {
  const where = `${source.repository} at commit ${source.commit.slice(0, 12)}`;
  return {
    code_list: {
      description: `List the files of the code repository ${where} whose paths match a glob, sorted (at most ${MAX_LISTED}). ${READ_ONLY} A pattern without "/" matches at any depth ("*.ts").`,
      inputSchema: {
        type: 'object',
        properties: { pattern: { type: 'string', description: 'A glob; default "**" (every file).' } },
        additionalProperties: false,
      },
    },
    code_read: {
      description: `Read a text file of the code repository ${where}, with line numbers; pass start_line/end_line for a range. ${READ_ONLY} Files over 1 MiB and binary files cannot be read.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: RELATIVE },
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
    code_search: {
      description: `Search the text files of the code repository ${where} for a regular expression (Perl syntax), like "git grep -n". Answers "path:line: text" lines, at most 100. ${READ_ONLY}`,
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'The regular expression.' },
          path_glob: {
            type: 'string',
            description: 'Only search files matching this glob, e.g. "src/**/*.ts".',
          },
          ignore_case: { type: 'boolean', description: 'Match regardless of letter case (default false).' },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
  };
}

function codeGit(
  context: CodeToolContext,
  args: readonly string[],
  maxStdoutBytes?: number,
): Promise<GitResult> {
  return context.git.run(args, {
    cwd: context.source.mirrorPath,
    // No credential: the commit is in the mirror. Paths are literal, never pathspec magic.
    env: { ...buildGitEnv({ unlocked: true }), GIT_LITERAL_PATHSPECS: '1' },
    maxStdoutBytes,
  });
}

interface TreeEntry {
  mode: string;
  type: string;
  id: string;
  size: number | null;
  path: string;
}

/** "<mode> <type> <id> <size>\t<path>" records of ls-tree -l -z. */
function parseTree(stdout: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', id = '', size = ''] = record.slice(0, tab).split(/\s+/);
    entries.push({
      mode,
      type,
      id,
      size: /^\d+$/.test(size) ? Number(size) : null,
      path: record.slice(tab + 1),
    });
  }
  return entries;
}

async function allFiles(context: CodeToolContext): Promise<string[]> {
  const result = await codeGit(context, ['ls-tree', '-r', '-z', '--full-tree', context.source.commit]);
  if (result.exitCode !== 0)
    throw new Error(`git ls-tree failed in the code mirror: ${result.stderr.trim()}`);
  return parseTree(result.stdout)
    .filter((entry) => entry.type === 'blob' && context.rules.isAllowed(entry.path))
    .map((entry) => entry.path)
    .sort();
}

async function codeList(context: CodeToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const given = optionalString(input, 'pattern') ?? '**';
  const glob = context.rules.checkGlob(given);
  const files = await allFiles(context);
  const isMatch = picomatch(glob, { dot: true });
  let matches = files.filter((file) => isMatch(file));
  if (matches.length === 0 && !/[*?[{]/.test(given)) {
    const prefix = `${given.replace(/^\.\//, '').replace(/\/+$/, '')}/`;
    matches = files.filter((file) => file.startsWith(prefix));
  }
  if (matches.length === 0)
    return success(
      `No files of the code repository match "${given}". A pattern without "/" matches at any depth ("*.ts"); use "src/**" for everything under src.`,
    );
  const shown = matches.slice(0, MAX_LISTED).join('\n');
  if (matches.length <= MAX_LISTED) return success(`${shown}\n(${matches.length} files)`);
  return success(
    `${shown}\n[${matches.length - MAX_LISTED} more files not shown: narrow the pattern, e.g. "src/api/**" or "*.ts"]`,
  );
}

async function codeRead(context: CodeToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const path = context.rules.checkRequestedPath(requiredString(input, 'path'));
  const startLine = optionalLineNumber(input, 'start_line') ?? 1;
  const endLine = optionalLineNumber(input, 'end_line');
  const listed = await codeGit(context, ['ls-tree', '-l', '-z', context.source.commit, '--', path]);
  if (listed.exitCode !== 0)
    throw new Error(`git ls-tree failed in the code mirror: ${listed.stderr.trim()}`);
  const entry = parseTree(listed.stdout).find((e) => e.path === path);
  if (entry === undefined)
    throw new ToolRefusal(
      `There is no file "${path}" in the code repository. Use code_list to see which files exist.`,
    );
  if (entry.type === 'tree')
    throw new ToolRefusal(`"${path}" is a directory; use code_list with "${path}/**" to see its files.`);
  if (entry.type !== 'blob' || entry.mode === '120000')
    throw new ToolRefusal(
      `"${path}" is not a regular file (a symbolic link or a submodule); it cannot be read.`,
    );
  context.rules.checkReadableSize(path, entry.size ?? 0);
  const blob = await codeGit(context, ['cat-file', 'blob', entry.id], MAX_FILE_BYTES + 1);
  if (blob.exitCode !== 0) throw new Error(`git cat-file failed in the code mirror: ${blob.stderr.trim()}`);
  // git's output arrives decoded; a NUL or an undecodable byte makes it binary, as for the docs.
  if (blob.stdout.includes('\uFFFD'))
    throw new ToolRefusal(`"${path}" is not valid UTF-8 text (a binary file?); it cannot be read.`);
  const text = context.rules.decodeText(path, Buffer.from(blob.stdout, 'utf8'));
  return success(numberedSlice(path, text, startLine, endLine, 'code_read'), path);
}

function codeSearch(context: CodeToolContext, rawInput: unknown): Promise<ToolResult> {
  return searchIn(
    {
      // Globs are pathspec magic here, so the literal setting is left out.
      git: (args, max) =>
        context.git.run(args, {
          cwd: context.source.mirrorPath,
          env: buildGitEnv({ unlocked: true }),
          maxStdoutBytes: max,
        }),
      commit: context.source.commit,
      rules: context.rules,
      tool: 'code_search',
    },
    rawInput,
  );
}

export const CODE_TOOL_IMPLEMENTATIONS: Record<
  CodeToolName,
  (context: CodeToolContext, input: unknown) => Promise<ToolResult>
> = {
  code_list: codeList,
  code_read: codeRead,
  code_search: codeSearch,
};

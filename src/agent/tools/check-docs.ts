// check_docs: runs the docs checks on the worktree as it is now and answers the problems the
// job introduced, each with file, line and a fix. Optional paths narrow the report.
import { asInput } from './arguments.ts';
import { ToolRefusal } from './guards.ts';
import { success, type ToolContext, type ToolResult } from './tool-context.ts';

const MAX_PATHS = 100;
const MAX_PATH_CHARS = 1000;

export async function checkDocsTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  if (!context.checkDocs) throw new ToolRefusal('The docs checks are off for this project.');
  const input = asInput(rawInput);
  const given = input.paths;
  if (given !== undefined && !Array.isArray(given))
    throw new ToolRefusal('paths must be a list of file paths.');
  const paths = (given ?? []).map((path) => {
    if (
      typeof path !== 'string' ||
      path.length === 0 ||
      path.length > MAX_PATH_CHARS ||
      path.includes('\0')
    ) {
      throw new ToolRefusal(`Each path must be a non-empty file path under ${MAX_PATH_CHARS} characters.`);
    }
    return path.replace(/^\.\//, '').replace(/^\/+/, '');
  });
  if (paths.length > MAX_PATHS) throw new ToolRefusal(`Give at most ${MAX_PATHS} paths.`);
  return success(await context.checkDocs(paths));
}

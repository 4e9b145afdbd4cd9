// finish: the agent's last call. It records the change's title (the commit message and pull
// request title) and summary (the pull request body); the loop stops once it is recorded.
import { asInput, requiredString } from './arguments.ts';
import { ToolRefusal } from './guards.ts';
import { success, type ToolContext, type ToolResult } from './tool-context.ts';

export const MAX_TITLE_CHARS = 200;
export const MAX_SUMMARY_CHARS = 20_000;

export async function finishTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const title = requiredString(input, 'title').replace(/\s+/g, ' ').trim();
  const summary = requiredString(input, 'summary').trim();
  if (title.length === 0) throw new ToolRefusal('The title is empty; give a short title for the change.');
  if (title.length > MAX_TITLE_CHARS)
    throw new ToolRefusal(`The title has ${title.length} characters; keep it under ${MAX_TITLE_CHARS}.`);
  if (summary.length === 0) throw new ToolRefusal('The summary is empty; say what changed and why.');
  if (summary.length > MAX_SUMMARY_CHARS)
    throw new ToolRefusal(
      `The summary has ${summary.length} characters; keep it under ${MAX_SUMMARY_CHARS}.`,
    );
  context.finish = { title, summary };
  return success('Recorded. Stop now: the job commits the changes and opens the pull request.');
}

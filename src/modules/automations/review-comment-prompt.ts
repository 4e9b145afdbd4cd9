// The prompt of a review_comment run's follow-up: the comment, the thread it is in (the comments
// docwright received on that thread, oldest first), the file and the commented lines as they are
// on the job's branch now (read through the git mirror by the function the worker is given,
// capped), GitHub's diff hunk, then the automation's template.
import { MAX_PROMPT_LENGTH } from '../../contract/index.ts';
import type { Queryable } from '../../db/database.ts';
import type { ReviewCommentEvent } from './hosts/review-comment-event.ts';
import type { AutomationRow, RunRow } from './queries.ts';
import { type CommentedJob, selectThreadComments } from './review-comment-queries.ts';
import { renderTemplate } from './template.ts';

/** Reads lines startLine..endLine (1-based, inclusive) of a file on a job's branch. */
export type ReadBranchLines = (input: {
  projectId: string;
  jobId: string;
  repositoryUrl: string;
  branch: string;
  path: string;
  startLine: number;
  endLine: number;
}) => Promise<string[]>;

/** The most lines quoted, and the lines of context around the commented ones. */
export const MAX_QUOTED_LINES = 80;
const CONTEXT_LINES = 3;
const MAX_LINE_CHARS = 500;
/** The most earlier comments of the thread quoted, and the characters of each. */
const MAX_THREAD_COMMENTS = 30;
const MAX_THREAD_COMMENT_CHARS = 2_000;
/** Room left under the job's prompt limit. */
const MAX_CHARS = MAX_PROMPT_LENGTH - 1_000;

const quote = (text: string) =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (cut)` : text);

async function linesSection(
  event: ReviewCommentEvent,
  job: CommentedJob,
  projectId: string,
  readLines: ReadBranchLines | undefined,
): Promise<string | null> {
  if (event.path === null) return null;
  if (event.endLine === null) return `The comment is on the file ${event.path} as a whole.`;
  const start = event.startLine ?? event.endLine;
  const range = start === event.endLine ? `line ${start}` : `lines ${start}–${event.endLine}`;
  const where = `${event.path}, ${range}${event.side === 'old' ? ' of the old version (lines the pull request removed)' : ''}`;
  if (event.side === 'old') return `The comment is on ${where}.`;
  if (readLines === undefined || job.branch === null) {
    return `The comment is on ${where}. Read the file to see them.`;
  }
  const first = Math.max(1, start - CONTEXT_LINES);
  const last = Math.min(event.endLine + CONTEXT_LINES, first + MAX_QUOTED_LINES - 1);
  try {
    const lines = await readLines({
      projectId,
      jobId: job.id,
      repositoryUrl: job.source_repository,
      branch: job.branch,
      path: event.path,
      startLine: first,
      endLine: last,
    });
    if (lines.length === 0)
      return `The comment is on ${where}; the file on the branch has no such lines now.`;
    const width = String(first + lines.length - 1).length;
    const shown = lines
      .map((line, i) => {
        const number = first + i;
        const mark = number >= start && number <= event.endLine! ? '>' : ' ';
        return `${mark}${String(number).padStart(width)} | ${cut(line, MAX_LINE_CHARS)}`;
      })
      .join('\n');
    const capped = last < event.endLine + CONTEXT_LINES ? ` (the first ${MAX_QUOTED_LINES} shown)` : '';
    return `The comment is on ${where}. As on the branch ${job.branch} now, the commented lines marked with ">"${capped}:\n\`\`\`\n${shown}\n\`\`\``;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `The comment is on ${where}. (docwright could not read them from the branch: ${cut(why, 300)}; read the file.)`;
  }
}

export async function reviewCommentPrompt(
  db: Queryable,
  input: {
    automation: AutomationRow;
    run: RunRow;
    job: CommentedJob;
    event: ReviewCommentEvent;
    readLines?: ReadBranchLines;
  },
): Promise<string> {
  const { automation, run, job, event } = input;
  const what = event.kind === 'review' ? 'reviewed' : 'commented on';
  const parts: string[] = [
    `${event.author ? `@${event.author}` : 'A reviewer'} ${what} the pull request this job opened (${event.pullUrl}). Address it with a change on the same branch; change only what it asks for.`,
    `${event.kind === 'review' ? 'The review' : 'The comment'} (${event.url}):\n${quote(event.body)}`,
  ];
  const thread = (await selectThreadComments(db, job.id, event.threadKey, MAX_THREAD_COMMENTS + 1)).filter(
    (c) => c.comment_key !== event.commentKey,
  );
  if (thread.length > 0) {
    const earlier = thread
      .slice(-MAX_THREAD_COMMENTS)
      .map((c) => `@${c.author}:\n${quote(cut(c.body, MAX_THREAD_COMMENT_CHARS))}`)
      .join('\n\n');
    parts.push(`The thread it replies to, oldest first:\n${earlier}`);
  }
  const lines = await linesSection(event, job, run.project_id, input.readLines);
  if (lines !== null) parts.push(lines);
  if (event.diffHunk !== '')
    parts.push(`The diff hunk it was made on:\n\`\`\`diff\n${event.diffHunk}\n\`\`\``);
  const template = renderTemplate(automation.prompt_template, {
    event,
    events: run.context.events,
    automation: { id: automation.id, name: automation.name },
    run: { id: run.id },
  });
  if (template.trim() !== '') parts.push(template);
  return cut(parts.join('\n\n'), MAX_CHARS);
}

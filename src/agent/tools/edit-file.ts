// edit_file: replaces one exact piece of text with another. Exactly one occurrence must match:
// none, and the answer shows where similar text is; several, and it says how many and where, and
// asks for more surrounding lines. Exactness is the point: an edit never lands somewhere the model
// did not look.
import { writeFile } from 'node:fs/promises';
import { asInput, requiredString } from './arguments.ts';
import { closestLines, occurrenceLines } from './closest-lines.ts';
import { ToolRefusal } from './guards.ts';
import { numberLines, readTextFile, splitLines } from './text-file.ts';
import { changed, success, type ToolContext, type ToolResult } from './tool-context.ts';

/** Lines of the edited region echoed back, so the model sees the result without reading again. */
const ECHO_LINES = 30;

/** The old text as it occurs in the file: as given, or with CRLF line ends when the file uses them. */
function locate(text: string, oldText: string, newText: string) {
  if (text.includes(oldText)) return { oldText, newText };
  if (text.includes('\r\n') && !oldText.includes('\r')) {
    const crlf = oldText.replace(/\n/g, '\r\n');
    if (text.includes(crlf)) return { oldText: crlf, newText: newText.replace(/\r?\n/g, '\r\n') };
  }
  return null;
}

function notFoundMessage(relative: string, text: string, oldText: string): string {
  const lines = splitLines(text);
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const whitespaceOnly = squash(text).includes(squash(oldText));
  const near = closestLines(lines, oldText);
  const lead = `old_text was not found in ${relative}.`;
  const why = whitespaceOnly
    ? ' It matches when spaces and line breaks are ignored: copy the exact text, including indentation and line breaks, from read_file.'
    : ' Copy the exact current text from read_file (without the line numbers).';
  return near
    ? `${lead}${why}\nThe most similar lines are:\n${near}`
    : `${lead}${why} Nothing similar was found; read the file first.`;
}

export async function editFileTool(context: ToolContext, rawInput: unknown): Promise<ToolResult> {
  const input = asInput(rawInput);
  const path = requiredString(input, 'path');
  const oldText = requiredString(input, 'old_text');
  const newText = requiredString(input, 'new_text');
  if (oldText.length === 0)
    throw new ToolRefusal(
      'old_text is empty. To add text, include a nearby line in old_text and repeat it in new_text.',
    );
  if (oldText === newText) throw new ToolRefusal('old_text and new_text are the same; nothing would change.');
  const { file, text } = await readTextFile(context.guards, path);
  const found = locate(text, oldText, newText);
  if (!found) throw new ToolRefusal(notFoundMessage(file.relative, text, oldText));
  const at = occurrenceLines(text, found.oldText);
  if (at.length > 1)
    throw new ToolRefusal(
      `old_text occurs ${at.length} times in ${file.relative} (starting on lines ${at.slice(0, 10).join(', ')}${at.length > 10 ? ', …' : ''}). Include more surrounding lines in old_text so it matches exactly once.`,
    );
  const index = text.indexOf(found.oldText);
  const updated = text.slice(0, index) + found.newText + text.slice(index + found.oldText.length);
  context.guards.checkWritableContent(file.relative, updated);
  await writeFile(file.absolute, updated);

  const firstLine = at[0]!;
  const newLines = splitLines(found.newText.endsWith('\n') ? found.newText : `${found.newText}\n`);
  const oldCount = splitLines(found.oldText.endsWith('\n') ? found.oldText : `${found.oldText}\n`).length;
  const echo = splitLines(updated).slice(
    firstLine - 1,
    firstLine - 1 + Math.min(newLines.length, ECHO_LINES),
  );
  const range = (n: number) => (n <= 1 ? `line ${firstLine}` : `lines ${firstLine}-${firstLine + n - 1}`);
  const summary =
    found.newText.length === 0
      ? `Edited ${file.relative}: removed ${range(oldCount)}.`
      : `Edited ${file.relative}: ${range(oldCount)} replaced; now ${range(newLines.length)}:\n${numberLines(echo, firstLine)}`;
  const answer =
    newLines.length > ECHO_LINES
      ? `${summary}\n[${newLines.length - ECHO_LINES} more new lines not shown]`
      : summary;
  return changed(success(answer, file.relative), context.guards.relativeOf(file.absolute));
}

// A unified diff cut to a size, between files and never inside one: files that do not fit in
// what is left are skipped (in order; a smaller one after them may still fit), and a note at the
// end names them. Cutting a diff that already carries such a note again (a prompt that needs a
// smaller one) keeps the files the first cut left out in the new note.

/** Longest diff handed to a prompt, in characters (the note about what was cut comes on top). */
export const MAX_DIFF_CHARS = 40_000;

const NOTE =
  /\[diff cut at \d+ characters: (\d+) file\(s\) left out: ([^\n]*?)(?: and \d+ more)?\. Read them with the code tools\.\]\n$/;
const NAMES_SHOWN = 50;

/** `diff` cut to `max` characters; `truncated` says the text was already cut short when read. */
export function capDiff(diff: string, truncated = false, max = MAX_DIFF_CHARS): string {
  if (diff.length <= max && !truncated) return diff;
  const note = NOTE.exec(diff);
  const body = note ? diff.slice(0, note.index) : diff;
  const earlier = note ? note[2]!.split(', ').filter(Boolean) : [];
  const earlierCount = note ? Number(note[1]) : 0;
  let kept = '';
  const left: string[] = [];
  for (const file of body.split(/^(?=diff --git )/m)) {
    if (file === '') continue;
    // A last file cut short by the read limit cannot fit either: that limit is far above max.
    if (kept.length + file.length <= max) kept += file;
    else left.push(/^diff --git a\/(.*?) b\//.exec(file)?.[1] ?? '(a file)');
  }
  const names = [...left, ...earlier];
  const count = left.length + earlierCount;
  const shown = names.slice(0, NAMES_SHOWN);
  const more = count > shown.length ? ` and ${count - shown.length} more` : '';
  const text = `[diff cut at ${max} characters: ${count} file(s) left out: ${shown.join(', ')}${more}. Read them with the code tools.]`;
  return `${kept}${kept.endsWith('\n') || kept === '' ? '' : '\n'}${text}\n`;
}

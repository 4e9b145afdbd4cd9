// What a docs check reports: a problem with a stable code, the file and line it is about, what is
// wrong and a one-line hint to fix it. The codes are a public list (docs/docs-checks.md): clients
// and the agent's model may match on them, so a code is never renamed, only added.

export const DOCS_CHECK_CODES = {
  markdown_syntax: 'The page does not parse as Markdown/MDX (an unclosed JSX tag, a stray `{` or `<`).',
  frontmatter_yaml: 'The front matter between the leading `---` lines is not valid YAML.',
  frontmatter_field: 'The front matter lacks a field the framework requires, or a field has the wrong type.',
  link_broken: 'A link points to a page or file that does not exist in the repository.',
  link_anchor: 'A link points to a `#anchor` that no heading or id on the target page defines.',
  file_missing: 'An image or other referenced file does not exist in the repository.',
  nav_config: 'The navigation configuration cannot be read or lacks what the framework requires.',
  nav_page_missing: 'The navigation names a page that does not exist.',
  page_unreachable: 'A page the job created is neither in the navigation nor linked from a page that is.',
} as const;

export type DocsCheckCode = keyof typeof DOCS_CHECK_CODES;

export interface DocsProblem {
  code: DocsCheckCode;
  /** Repository-relative path of the file the problem is in. */
  file: string;
  /** 1-based line, when the problem has one. */
  line: number | null;
  message: string;
  /** One line saying how to fix it. */
  hint: string;
  /**
   * What the problem is about apart from its line (the link target, the missing field): the same
   * problem at another line after an edit above it is still the same problem.
   */
  subject: string;
}

const keyOf = (p: DocsProblem) => `${p.code}\u0000${p.file}\u0000${p.subject}`;

/**
 * The problems of `branch` that `base` did not have: matched by code, file and subject (not
 * line), counting repeats, so a second broken link to the same target is new too.
 */
export function introducedProblems(
  base: readonly DocsProblem[],
  branch: readonly DocsProblem[],
): DocsProblem[] {
  const remaining = new Map<string, number>();
  for (const problem of base) remaining.set(keyOf(problem), (remaining.get(keyOf(problem)) ?? 0) + 1);
  const introduced: DocsProblem[] = [];
  for (const problem of branch) {
    const left = remaining.get(keyOf(problem)) ?? 0;
    if (left > 0) remaining.set(keyOf(problem), left - 1);
    else introduced.push(problem);
  }
  return introduced;
}

export function sortProblems(problems: DocsProblem[]): DocsProblem[] {
  return problems.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)) ||
      (a.code < b.code ? -1 : 1),
  );
}

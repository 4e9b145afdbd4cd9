// The docs checks' problems as the model reads them (check_docs, the fix turn) and as a pull
// request's body lists them.
import type { DocsCheckResult, DocsProblem } from '../../docs-checks/index.ts';

/** Problems listed at most; the rest are counted. */
const MAX_LISTED = 50;

const where = (p: DocsProblem) => (p.line === null ? p.file : `${p.file}:${p.line}`);

export function problemsForModel(result: DocsCheckResult): string {
  const context = `framework: ${result.framework}; ${result.pagesChecked} pages checked; ${result.preexisting} problems were already there before this job and are not yours to fix`;
  if (result.introduced.length === 0) return `No problems introduced by this job (${context}).`;
  const lines = result.introduced
    .slice(0, MAX_LISTED)
    .map((p) => `${where(p)} [${p.code}] ${p.message} Fix: ${p.hint}`);
  const more = result.introduced.length - MAX_LISTED;
  return [
    `${result.introduced.length} problems introduced by this job (${context}):`,
    ...lines,
    ...(more > 0 ? [`(${more} more not shown: fix these, then run check_docs again.)`] : []),
  ].join('\n');
}

/** The request for the fix turn: what is broken, and to fix only that. */
export function fixRequest(result: DocsCheckResult): string {
  return [
    'The docs checks found problems your changes introduced. The site will not build cleanly until they are fixed:',
    problemsForModel(result),
    'Fix exactly these (read the files involved first), run check_docs to confirm, then call finish again with the title and summary of the whole change.',
  ].join('\n\n');
}

/** A Markdown section for the pull request's body. */
export function problemsForPullRequest(result: DocsCheckResult): string {
  const rows = result.introduced
    .slice(0, MAX_LISTED)
    .map((p) => `- \`${where(p)}\` **${p.code}**: ${escapeMarkdown(p.message)}`);
  const more = result.introduced.length - MAX_LISTED;
  return [
    `> [!WARNING]\n> The docs checks (${result.framework}) found ${result.introduced.length} problems this change introduced; the pull request is a draft until they are fixed.`,
    rows.join('\n'),
    ...(more > 0 ? [`…and ${more} more.`] : []),
  ].join('\n\n');
}

function escapeMarkdown(text: string): string {
  return text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')).replace(/\r?\n/g, ' ');
}

// One check run: the branch's problems split into those the job introduced and those already at
// the base. Without a scope, a run covers what the job can have broken: the pages it changed,
// the pages whose text mentions a changed page (the only ones whose links can have broken), the
// navigation, and whether each page it created is reachable. `full` covers every page.
import type { DocsFramework } from './frameworks.ts';
import { isPage } from './page-facts.ts';
import { type DocsProblem, introducedProblems, sortProblems } from './problems.ts';
import { nameOf, navigationRules, pageRules, reachabilityRules } from './rules.ts';
import type { DocsSnapshot } from './snapshot.ts';

export interface DocsCheckResult {
  framework: DocsFramework;
  /** Problems on the branch that the base did not have. */
  introduced: DocsProblem[];
  /** How many problems of the covered files the branch shares with the base. */
  preexisting: number;
  /** The paths asked for, or null for the whole change. */
  scope: string[] | null;
  /** How many pages the run covered. */
  pagesChecked: number;
  durationMs: number;
}

export interface CheckOptions {
  /** The paths that differ between base and branch. */
  changed: Iterable<string>;
  /** Only these files (the check_docs tool's paths); null or empty: what the change can affect. */
  scope?: readonly string[] | null;
  /** Every page, not only those the change can affect (parsed on worker threads). */
  full?: boolean;
}

export async function checkSnapshots(
  base: DocsSnapshot,
  branch: DocsSnapshot,
  options: CheckOptions,
): Promise<DocsCheckResult> {
  const started = performance.now();
  const changed = [...new Set(options.changed)];
  const scope = options.scope && options.scope.length > 0 ? [...new Set(options.scope)].sort() : null;
  let pages: string[];
  if (scope) pages = scope.filter(isPage);
  else if (options.full) {
    // One after the other: the branch shares the base's parsed pages and parses only its own.
    await base.parseAll();
    await branch.parseAll();
    pages = [...new Set([...base.pages(), ...branch.pages()])];
  } else pages = await affectedPages(base, branch, changed);
  const created = changed.filter((path) => isPage(path) && branch.files.has(path) && !base.files.has(path));
  const inScope = (problem: DocsProblem) => !scope || scope.includes(problem.file);
  const basePages = await pageRules(base, pages);
  // A snapshot checked against itself (a full check of one commit) has the same page problems.
  const branchPages = branch === base ? basePages : await pageRules(branch, pages);
  const before = [...basePages, ...navigationRules(base)].filter(inScope);
  const after = [
    ...branchPages,
    ...navigationRules(branch),
    ...(await reachabilityRules(branch, created)),
  ].filter(inScope);
  const introduced = sortProblems(introducedProblems(before, after));
  return {
    framework: branch.info.framework,
    introduced,
    preexisting: after.length - introduced.length,
    scope,
    pagesChecked: pages.length,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * The pages whose problems a change of `changed` can alter: the changed pages, and the pages
 * (at the base or on the branch) whose text names one of them, since only those can link there.
 * A changed page with no name to look for (the site's root index) makes it every page.
 */
async function affectedPages(
  base: DocsSnapshot,
  branch: DocsSnapshot,
  changed: readonly string[],
): Promise<string[]> {
  const affected = new Set(changed.filter(isPage));
  const names = namesOf(changed);
  if (names.has('')) return [...new Set([...base.pages(), ...branch.pages()])];
  for (const name of names) {
    for (const path of await branch.pagesMentioning(name)) affected.add(path);
    for (const path of await base.pagesMentioning(name)) affected.add(path);
  }
  return [...affected];
}

/** The names a page would use to link to each of `changed` ('' for the site's root index). */
function namesOf(changed: readonly string[]): Set<string> {
  // An image or other file is named with its extension; a page without (links may omit it).
  return new Set(changed.map((path) => (isPage(path) ? nameOf(path) : (path.split('/').pop() ?? ''))));
}

/**
 * Does now the base's part of a later run over a change of `changed`: the base's text of each
 * changed page and the base's pages naming one (a git grep, for a job's base). The calls are
 * the run's own, whose answers the snapshot keeps, so the run finds them done and its result is
 * the same; a job starts this when its tools change a file, beside the model's next call.
 */
export async function prepareBase(base: DocsSnapshot, changed: readonly string[]): Promise<void> {
  const names = namesOf(changed);
  if (names.has('')) return;
  await Promise.all([
    base.load(changed.filter((path) => isPage(path) && base.files.has(path))),
    ...[...names].map((name) => base.pagesMentioning(name)),
  ]);
}

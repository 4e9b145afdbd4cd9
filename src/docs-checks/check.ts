// One check run: the branch's problems split into those the job introduced and those already at
// the base. The base's own problems are worked out once per base snapshot and kept with it.
import type { DocsFramework } from './frameworks.ts';
import { type DocsProblem, introducedProblems, sortProblems } from './problems.ts';
import { runRules } from './rules.ts';
import type { DocsSnapshot } from './snapshot.ts';

export interface DocsCheckResult {
  framework: DocsFramework;
  /** Problems on the branch that the base did not have. */
  introduced: DocsProblem[];
  /** How many problems the branch shares with the base (left to their owners). */
  preexisting: number;
  /** Files the run covered: every page, or the paths asked for. */
  scope: string[] | null;
  durationMs: number;
}

const baseProblems = new WeakMap<DocsSnapshot, DocsProblem[]>();

function problemsOf(snapshot: DocsSnapshot): DocsProblem[] {
  let problems = baseProblems.get(snapshot);
  if (!problems) {
    problems = runRules(snapshot);
    baseProblems.set(snapshot, problems);
  }
  return problems;
}

/** The pages on the branch that the base did not have. */
export function createdPages(base: DocsSnapshot, branch: DocsSnapshot): Set<string> {
  const created = new Set<string>();
  for (const path of branch.pages.keys()) if (!base.files.has(path)) created.add(path);
  return created;
}

export function checkSnapshots(
  base: DocsSnapshot,
  branch: DocsSnapshot,
  options: { scope?: readonly string[] | null } = {},
): DocsCheckResult {
  const started = performance.now();
  const scope = options.scope && options.scope.length > 0 ? new Set(options.scope) : null;
  const branchProblems = runRules(branch, { created: createdPages(base, branch), scope });
  const before = scope ? problemsOf(base).filter((p) => scope.has(p.file)) : problemsOf(base);
  const introduced = sortProblems(introducedProblems(before, branchProblems));
  return {
    framework: branch.info.framework,
    introduced,
    preexisting: branchProblems.length - introduced.length,
    scope: scope ? [...scope].sort() : null,
    durationMs: Math.round(performance.now() - started),
  };
}

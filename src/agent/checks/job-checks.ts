// The docs checks of one job: the base's snapshot is prepared as soon as the worktree exists
// (beside the model's first calls), and each run compares the worktree now with it. Runs come
// from the check_docs tool, from the loop before publishing, and after a fix turn; each is a job
// event (docs_checks), and the framework found is one too (docs_framework).
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobEventType } from '../../contract/index.ts';
import {
  checkSnapshots,
  type DocsCheckResult,
  type DocsFramework,
  type DocsSnapshot,
  type DocsSource,
  prepareBase,
} from '../../docs-checks/index.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';
import { baseSnapshot } from './base-snapshot.ts';

export const DOCS_CHECKS_MODES = ['off', 'warn', 'block'] as const;
export type DocsChecksMode = (typeof DOCS_CHECKS_MODES)[number];

/** What started a run, as its event says. */
export type CheckTrigger = 'tool' | 'publish' | 'after_fix';

/** Problems an event carries at most (the API's checks answer shows the same). */
export const MAX_EVENT_PROBLEMS = 100;

export interface JobDocsChecksOptions {
  mode: Exclude<DocsChecksMode, 'off'>;
  /** The project's forced framework; absent: detected. */
  framework?: DocsFramework;
  repository: string;
  opening: Promise<JobWorkspace>;
  event(type: JobEventType, data: object): Promise<void>;
}

export class JobDocsChecks {
  readonly mode: Exclude<DocsChecksMode, 'off'>;
  readonly #options: JobDocsChecksOptions;
  readonly #base: Promise<DocsSnapshot>;
  #toolChanges: () => readonly string[] = () => [];
  /** Paths whose base part prepare() has started. */
  readonly #prepared = new Set<string>();

  constructor(options: JobDocsChecksOptions) {
    this.mode = options.mode;
    this.#options = options;
    this.#base = options.opening.then(async (workspace) => {
      const base = await baseSnapshot(options.repository, workspace, options.framework);
      await options
        .event('docs_framework', {
          framework: base.info.framework,
          configPath: base.info.configPath,
          forced: options.framework !== undefined,
          // What the navigation's reading left out (a sidebar built in code), so a user sees why
          // no page is ever reported unreachable there.
          notes: base.navigation.notes,
        })
        .catch(() => {});
      return base;
    });
    // A worktree that never comes is reported by the workspace phase; no run may be left to see it.
    this.#base.catch(() => undefined);
  }

  /** Tells the checks which paths the agent's tools changed so far (the toolbox knows them). */
  watchTools(changedPaths: () => readonly string[]): void {
    this.#toolChanges = changedPaths;
  }

  /**
   * Starts the base's part of the coming runs for the paths the tools changed since the last
   * call (the base's git work: a grep for the pages naming a changed page, the changed page's
   * base text), so it goes on beside the model's next call instead of after the last one. The
   * runs await the same answers (prepareBase); a failure here is left for a run to meet again.
   */
  prepare(): void {
    const fresh = this.#toolChanges().filter((path) => !this.#prepared.has(path));
    if (fresh.length === 0) return;
    for (const path of fresh) this.#prepared.add(path);
    this.#base.then((base) => prepareBase(base, fresh)).catch(() => undefined);
  }

  /** Checks the worktree now against the base; `scope` limits the report to those paths. */
  async run(trigger: CheckTrigger, scope: readonly string[] | null = null): Promise<DocsCheckResult> {
    const workspace = await this.#options.opening;
    const base = await this.#base;
    const changed = new Set(this.#toolChanges());
    // A continued branch holds earlier runs' changes too, which the tools of this run never saw.
    if (workspace.branchOnHost) for (const path of await workspace.changedSinceBase()) changed.add(path);
    const branch = await base.withChanges(await worktreeSource(workspace.path, base, changed), changed);
    const result = await checkSnapshots(base, branch, { changed, scope });
    await this.#options
      .event('docs_checks', {
        trigger,
        mode: this.mode,
        framework: result.framework,
        introducedCount: result.introduced.length,
        introduced: result.introduced.slice(0, MAX_EVENT_PROBLEMS),
        preexisting: result.preexisting,
        pagesChecked: result.pagesChecked,
        scope: result.scope,
        durationMs: result.durationMs,
      })
      .catch(() => {});
    return result;
  }
}

/** The worktree's state for the changed paths (regular files only; symlinks are not followed). */
async function worktreeSource(
  root: string,
  base: DocsSnapshot,
  changed: ReadonlySet<string>,
): Promise<DocsSource> {
  const files = new Set(base.files);
  await Promise.all(
    [...changed].map(async (path) => {
      const stat = await lstat(join(root, path)).catch(() => null);
      if (stat?.isFile()) files.add(path);
      else files.delete(path);
    }),
  );
  return {
    files: [...files],
    read: (path) => readFile(join(root, path), 'utf8').catch(() => null),
  };
}

// The repository's own instructions for the agent: .docwright/AGENTS.md, else AGENTS.md, read
// under the same rules as the agent's tools.

import { REPOSITORY_INSTRUCTION_FILES, type RepositoryInstructions } from '../instructions.ts';
import type { AgentToolbox } from '../tools/agent-tools.ts';
import { Guards, isToolRefusal, MAX_FILE_BYTES } from '../tools/guards.ts';
import { readTextFile } from '../tools/text-file.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';
import type { WorkspaceStartView } from '../workspace/workspaces.ts';

/**
 * On a cached mirror the file is read from the mirror at the start commit as soon as the fetch is
 * done, so the model need not wait for the worktree; the worktree is the source when this job
 * cloned the mirror (its file contents are fetched by the checkout anyway) and when only a
 * checkout can judge the file (a symbolic link, bytes that are not UTF-8).
 */
export async function repositoryInstructions(
  startView: Promise<WorkspaceStartView>,
  opening: Promise<JobWorkspace>,
  toolbox: AgentToolbox,
  denyGlobs: readonly string[],
): Promise<RepositoryInstructions | null> {
  // The worktree may be ready (or failed) without the start view ever coming.
  const view = await Promise.race([startView, opening.then(() => null)]);
  if (view !== null && !view.mirrorCloned) {
    const fromMirror = await instructionsFromMirror(view, denyGlobs);
    if (fromMirror !== 'needs_checkout') return fromMirror;
  }
  const guards = await toolbox.guards();
  for (const path of REPOSITORY_INSTRUCTION_FILES) {
    try {
      const { file, text } = await readTextFile(guards, path);
      return { path: file.relative, content: text };
    } catch (error) {
      if (!isToolRefusal(error)) throw error;
    }
  }
  return null;
}

/** The tools' refusals, applied to the mirror's files: denied, too large, binary → the next one. */
async function instructionsFromMirror(
  view: WorkspaceStartView,
  denyGlobs: readonly string[],
): Promise<RepositoryInstructions | null | 'needs_checkout'> {
  const rules = Guards.rulesOnly(denyGlobs);
  const allowed = REPOSITORY_INSTRUCTION_FILES.filter((path) => rules.isAllowed(path));
  if (allowed.length === 0) return null;
  for (const entry of await view.listFiles(allowed, MAX_FILE_BYTES)) {
    if (entry.kind === 'symlink') return 'needs_checkout';
    if (entry.kind !== 'file') continue;
    const bytes = await entry.read();
    if (bytes === null) return 'needs_checkout';
    try {
      return { path: entry.path, content: rules.decodeText(entry.path, bytes) };
    } catch (error) {
      if (!isToolRefusal(error)) throw error;
    }
  }
  return null;
}

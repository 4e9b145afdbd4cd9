// The workspace phase, which runs beside the model phase: the mirror is fetched (cloned the first
// time) and the worktree put on the job's branch while the model starts (see "A run, step by step"
// in docs/agent-jobs.md). Every tool call waits for the worktree. If the worktree cannot be made,
// `lost` aborts the model call and the workspace's failure becomes the job's.
import type { JobRunInput } from '../../modules/jobs/index.ts';
import type { OutboundPolicy } from '../../net/outbound-http/index.ts';
import type { BranchSoFar } from '../instructions.ts';
import { WorkspaceFailure } from '../workspace/failures.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';
import type { WorkspaceStartView, Workspaces } from '../workspace/workspaces.ts';

export class PreparingWorkspace {
  /** Resolves once the worktree is ready (and its event is stored); rejects with its failure. */
  readonly opening: Promise<JobWorkspace>;
  /** The mirror at the start commit, as soon as the fetch is done; may never come if opening fails. */
  readonly startView: Promise<WorkspaceStartView>;
  readonly #lost = new AbortController();
  #failure: unknown = null;
  #ready: JobWorkspace | null = null;

  constructor(
    workspaces: Workspaces,
    input: JobRunInput,
    branch: string,
    authorization: string,
    /** The repositories' address policy, for the request that spares a fetch (remote-refs.ts). */
    policy: OutboundPolicy | null = null,
  ) {
    let started: (view: WorkspaceStartView) => void = () => {};
    this.startView = new Promise<WorkspaceStartView>((resolve) => {
      started = resolve;
    });
    const { job } = input;
    this.opening = openWorkspace(workspaces, input, branch, authorization, policy, started).then(
      async (opened) => {
        this.#ready = opened;
        await input.event('workspace', {
          branch,
          base: job.source_ref,
          mirror: opened.mirrorCloned ? 'cloned' : 'fetched',
        });
        return opened;
      },
    );
    this.opening.catch((error) => {
      this.#failure = error;
      this.#lost.abort(error);
    });
  }

  /** Aborted when the worktree cannot be made. */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Why the worktree could not be made; null while it has not failed. */
  get failure(): unknown {
    return this.#failure;
  }

  /** The worktree once it exists, for removing it whatever else happened; null before. */
  get ready(): JobWorkspace | null {
    return this.#ready;
  }

  /** The worktree's path, for the tools, which wait for it. */
  root(): Promise<string> {
    return this.opening.then((opened) => opened.path);
  }

  /** The worktree after the model phase: its failure, if it failed meanwhile, is thrown first. */
  async afterModel(): Promise<JobWorkspace> {
    if (this.#failure !== null) throw this.#failure;
    return this.opening;
  }

  /** Waits until opening has succeeded or failed, without throwing. */
  async settled(): Promise<void> {
    await this.opening.catch(() => undefined);
  }

  /** The branch's diff against its base when the branch was on the code host and holds changes. */
  async pushedSoFar(base: string): Promise<BranchSoFar | null> {
    const opened = await this.opening;
    if (!opened.branchOnHost) return null;
    const diff = await opened.diff();
    return diff.trim() === '' ? null : { base, diff };
  }
}

/** A follow-up or a retry continues the job's branch when the code host has it. */
async function openWorkspace(
  workspaces: Workspaces,
  input: JobRunInput,
  branch: string,
  authorization: string,
  policy: OutboundPolicy | null,
  onStart: (view: WorkspaceStartView) => void,
): Promise<JobWorkspace> {
  const { job, signal } = input;
  const repository = { url: job.source_repository, authorization, policy };
  const open = (start: Parameters<Workspaces['open']>[0]['start']) =>
    workspaces.open({ repository, jobId: job.id, branch, start, signal, onStart });
  if (job.branch === null) return open({ kind: 'new', ref: job.source_ref });
  try {
    return await open({ kind: 'continue', baseRef: job.source_ref });
  } catch (error) {
    if (error instanceof WorkspaceFailure && error.kind === 'ref_not_found') {
      return open({ kind: 'new', ref: job.source_ref });
    }
    throw error;
  }
}

// The publish phase: what the tools changed is committed as the bot, and when the branch is ahead
// of its base it is pushed (never forced) and its pull request opened, or the open one updated.
import type { CodeHost, PullRequestResult } from '../../code-hosts/contract.ts';
import type { Config } from '../../config/config.ts';
import type { DocsCheckResult } from '../../docs-checks/index.ts';
import type { JobRunInput } from '../../modules/jobs/index.ts';
import { DocsChecksFailure } from '../checks/failure.ts';
import { problemsForPullRequest } from '../checks/problem-text.ts';
import type { AgentOutcome } from '../loop.ts';
import { commitMessage, pullRequestBody, pullRequestTitle } from '../pull-request-text.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';

export interface PublishOptions {
  config: Pick<Config, 'gitAuthor' | 'publicUrl'>;
  codeHost: CodeHost;
  workspace: JobWorkspace;
  outcome: AgentOutcome;
  /** Every path the tools created, changed, moved or deleted. */
  changedPaths: string[];
  prompt: string;
  branch: string;
  /** Keeps the job's diff after the worktree is gone (the diff endpoint reads it). */
  saveDiff?: (jobId: string, diff: string) => Promise<unknown>;
  /**
   * The docs checks' gate, when the job's changes introduced problems: warn opens the pull
   * request as a draft listing them; block opens none (the branch is pushed) and fails the job.
   */
  checks?: { mode: 'warn' | 'block'; result: DocsCheckResult } | null;
}

/** The pull request the branch is published in; null when the branch holds nothing to publish. */
export async function publish(
  input: JobRunInput,
  options: PublishOptions,
): Promise<PullRequestResult | null> {
  const { job, project, prompts, signal } = input;
  const { workspace, outcome, config, branch } = options;
  const title = pullRequestTitle(outcome.title, options.prompt);
  // Only what the tools touched is staged: scanning a 10,000-file tree for changes costs more.
  const commit = await workspace.makeCommit(config.gitAuthor, commitMessage(title, outcome.summary), {
    paths: options.changedPaths,
  });
  // A commit just made puts the branch ahead of its base; only a run that committed nothing asks
  // git, because a follow-up or a retry may still carry earlier commits to publish.
  if (!commit.committed && (await workspace.commitsAhead()) === 0) return null;
  // The commit is pushed and diffed by its id, so the local branch's move (update-ref), the
  // `committed` event, the diff and the push go on at once: none needs another (~15 ms of a later
  // job, docs/agent-jobs.md). `pushed` is written after all of them, so the events keep their
  // order. A refused push is the failure to report when several fail.
  const head = commit.committed ? commit.commit : 'HEAD';
  const [pushed, moved, recorded, saved] = await Promise.allSettled([
    workspace.push(head),
    commit.committed ? commit.branchMoved : undefined,
    commit.committed ? input.event('committed', { commit: commit.commit }) : undefined,
    workspace.diff(head).then((diff) => options.saveDiff?.(job.id, diff)),
  ]);
  for (const settled of [pushed, moved, recorded, saved])
    if (settled.status === 'rejected') throw settled.reason;
  await input.event('pushed', { branch });
  const gate = options.checks ?? null;
  if (gate?.mode === 'block') {
    const count = gate.result.introduced.length;
    throw new DocsChecksFailure(
      `The changes introduced ${count} docs problem${count === 1 ? '' : 's'} the agent did not fix, and the project's checks setting is block: branch ${branch} was pushed, no pull request opened. GET .../job/{id}/checks lists them.`,
    );
  }
  const pr = await options.codeHost.openOrUpdatePullRequest({
    repositoryUrl: job.source_repository,
    head: branch,
    base: job.source_ref,
    title,
    body: pullRequestBody({
      summary: outcome.summary,
      stoppedBy: outcome.stoppedBy,
      prompts,
      jobId: job.id,
      jobUrl: `${config.publicUrl}/v2/agent/${project.id}/job/${job.id}`,
      ...(gate ? { checksNote: problemsForPullRequest(gate.result) } : {}),
    }),
    draft: (project.settings.draftPullRequests ?? false) || gate !== null,
    // Pushed for the first time just now: no pull request can be open for it yet.
    headIsNew: !workspace.branchOnHost,
    signal,
  });
  // The commit the pull request shows: the CI watch reads its checks (docs/ci-follow-up.md).
  const headSha = commit.committed ? commit.commit : await workspace.headCommit();
  await input.event('pull_request', { url: pr.url, number: pr.number, reused: pr.reused, headSha });
  return pr;
}

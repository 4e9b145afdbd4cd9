// The review_comment trigger: a comment on a pull request a docwright job opened becomes a
// follow-up on that job (same branch, same pull request), through the same followUpJob as
// POST .../job/{id}/message. Intake (receiveReviewComment) matches the pull request to its job,
// keeps the comment for its thread's later prompts, drops docwright's own comments and those
// the automation's mention filter does not pass, and queues one run per comment (the delivery id
// and the comment's id dedupe redeliveries and retellings). The worker (reviewCommentDecision)
// waits while the job runs, then builds the prompt (review-comment-prompt.ts).
import type { AutomationCodeHost } from '../../contract/index.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { getProject, type Project } from '../projects/index.ts';
import type { ReviewCommentEvent } from './hosts/review-comment-event.ts';
import { type AutomationRow, insertInboundDelivery, type RunRow } from './queries.ts';
import {
  type CommentedJob,
  insertReviewComment,
  selectJobByBranch,
  selectJobByPullUrl,
  selectJobForComment,
  selectReviewCommentAutomations,
} from './review-comment-queries.ts';

/**
 * A comment whose body carries this is docwright's own and starts nothing (docwright writes it
 * into any comment it posts; a person may add it to keep a comment from the agent).
 */
export const DOCWRIGHT_COMMENT_MARKER = '<!-- docwright -->';

/** owner/name of a repository URL (GitLab: the full path), lower case, without .git. */
export function repositoryPathOf(url: string): string {
  try {
    return new URL(url).pathname
      .replace(/^\/+|\/+$/g, '')
      .replace(/\.git$/, '')
      .toLowerCase();
  } catch {
    return '';
  }
}

/** The job of this project whose pull request the comment is on, or null. */
async function jobOfComment(
  tx: Queryable,
  project: Project,
  comment: ReviewCommentEvent,
): Promise<CommentedJob | null> {
  if (comment.pullUrl !== '') {
    const byUrl = await selectJobByPullUrl(tx, project.id, comment.pullUrl.replace(/\/+$/, ''));
    if (byUrl !== null) return byUrl;
  }
  // By head branch, only in the project's docs repository: another repository's branch of the
  // same name is not docwright's.
  if (
    comment.headBranch !== null &&
    comment.repository.toLowerCase() === repositoryPathOf(project.repositoryUrl)
  ) {
    const byBranch = await selectJobByBranch(tx, project.id, comment.headBranch);
    if (byBranch !== null && byBranch.pr_link !== null) return byBranch;
  }
  return null;
}

/** Why the comment is docwright's own, or null when it is someone else's. */
export function ownCommentReason(project: Project, comment: ReviewCommentEvent): string | null {
  if (comment.body.includes(DOCWRIGHT_COMMENT_MARKER)) return 'the comment carries the docwright marker';
  const login = project.settings.codeHostBotLogin?.replace(/^@/, '').toLowerCase();
  if (login && comment.author.toLowerCase() === login) {
    return `a comment by docwright's own account (${comment.author})`;
  }
  const appId = project.settings.githubAppId;
  if (appId && comment.viaAppId === appId) return "a comment made through docwright's GitHub App";
  return null;
}

/** Whether the body mentions @handle as a whole word (case-insensitive). */
export function mentions(body: string, handle: string): boolean {
  const name = handle.replace(/^@/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w@/.-])@${name}(?![\\w-])`, 'i').test(body);
}

/** intake.ts's queueEvent, passed in (intake imports this file). */
export type QueueEvent = (
  tx: Queryable,
  automation: AutomationRow,
  event: Record<string, unknown>,
  key: string | null,
  now: Date,
) => Promise<{ runId: string; duplicate: boolean }>;

export interface ReviewCommentOutcome {
  runs: string[];
  ignored: string | null;
}

/**
 * A verified delivery that is a comment event: recorded by delivery id, matched to its job, kept
 * for its thread, and queued for each review_comment automation it passes. Never throws for a
 * comment it does not take: a code host disables webhooks that keep failing.
 */
export async function receiveReviewComment(
  db: Database,
  input: {
    projectId: string;
    host: AutomationCodeHost;
    deliveryId: string | null;
    comment: ReviewCommentEvent | null;
    ignored: string | null;
    now: Date;
  },
  queueEvent: QueueEvent,
): Promise<ReviewCommentOutcome> {
  return db.transaction(async (tx) => {
    if (
      input.deliveryId !== null &&
      !(await insertInboundDelivery(tx, input.projectId, input.host, input.deliveryId))
    ) {
      return { runs: [], ignored: 'a redelivery of a delivery already received' };
    }
    const comment = input.comment;
    if (comment === null) return { runs: [], ignored: input.ignored };
    const project = await getProject(tx, input.projectId);
    const job = await jobOfComment(tx, project, comment);
    if (job === null) {
      return {
        runs: [],
        ignored: `the comment is on ${comment.pullUrl || 'a pull request'}, which no docwright job of this project opened`,
      };
    }
    // Every comment on the job's pull request is kept, the ones that start nothing included: a
    // later reply's prompt quotes the whole thread.
    await insertReviewComment(tx, {
      projectId: project.id,
      host: comment.host,
      commentKey: comment.commentKey,
      jobId: job.id,
      threadKey: comment.threadKey,
      author: comment.author,
      body: comment.body,
      path: comment.path,
      startLine: comment.startLine,
      endLine: comment.endLine,
      url: comment.url,
    });
    const own = ownCommentReason(project, comment);
    if (own !== null) return { runs: [], ignored: own };
    if (job.status === 'archived') return { runs: [], ignored: `its job ${job.id} is archived` };
    const automations = await selectReviewCommentAutomations(tx, project.id);
    if (automations.length === 0) return { runs: [], ignored: 'no enabled review_comment automation' };
    const event: Record<string, unknown> = { ...comment, jobId: job.id };
    const runs: string[] = [];
    const unmentioned: string[] = [];
    for (const automation of automations) {
      const mention = automation.trigger.mention;
      if (mention !== undefined && !mentions(comment.body, mention)) {
        unmentioned.push(mention);
        continue;
      }
      // One run per comment; comments are not gathered (each is a follow-up on its own job).
      const immediate = { ...automation, limits: { ...automation.limits, quietPeriodSeconds: 0 } };
      const key = `review_comment:${comment.host}:${comment.commentKey}`;
      const queued = await queueEvent(tx, immediate, event, key, input.now);
      if (!queued.duplicate) runs.push(queued.runId);
    }
    if (runs.length > 0) return { runs, ignored: null };
    return {
      runs,
      ignored:
        unmentioned.length === automations.length
          ? `the comment does not mention ${[...new Set(unmentioned)].join(' or ')}`
          : 'this comment was already received',
    };
  });
}

export type ReviewDecision =
  | { kind: 'skip'; reason: string }
  | { kind: 'wait'; reason: string }
  | { kind: 'follow-up'; job: CommentedJob; event: ReviewCommentEvent & { jobId: string } };

/** What the worker does with a review_comment run: follow up its job, wait for it, or skip. */
export async function reviewCommentDecision(
  tx: Queryable,
  _automation: AutomationRow,
  run: RunRow,
): Promise<ReviewDecision> {
  const event = run.context.events.at(-1) as (ReviewCommentEvent & { jobId: string }) | undefined;
  if (event === undefined || typeof event.jobId !== 'string') {
    return { kind: 'skip', reason: 'the run names no job to follow up' };
  }
  const job = await selectJobForComment(tx, event.jobId);
  if (job === null) return { kind: 'skip', reason: `its job ${event.jobId} no longer exists` };
  if (job.status === 'archived') return { kind: 'skip', reason: `its job ${job.id} is archived` };
  if (job.status === 'active') return { kind: 'wait', reason: `its job ${job.id} is still running` };
  return { kind: 'follow-up', job, event };
}

// SQL of the review_comment trigger: the job that opened a pull request, the comments kept for
// thread context, the project's review_comment automations; one function per statement.
import type { Queryable } from '../../db/database.ts';
import type { AutomationRow } from './queries.ts';

export interface CommentedJob {
  id: string;
  status: string;
  branch: string | null;
  pr_link: string | null;
  source_repository: string;
}

const JOB_COLUMNS = 'id, status, branch, pr_link, source_repository';

/** The project's job whose pull request is at this web URL (newest first, should two claim it). */
export async function selectJobByPullUrl(
  db: Queryable,
  projectId: string,
  pullUrl: string,
): Promise<CommentedJob | null> {
  const rows = await db.query<CommentedJob>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE project_id = $1 AND pr_link = $2
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [projectId, pullUrl],
  );
  return rows[0] ?? null;
}

/** The project's job that pushed this branch and opened a pull request for it. */
export async function selectJobByBranch(
  db: Queryable,
  projectId: string,
  branch: string,
): Promise<CommentedJob | null> {
  const rows = await db.query<CommentedJob>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE project_id = $1 AND branch = $2 AND pr_link IS NOT NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [projectId, branch],
  );
  return rows[0] ?? null;
}

export async function selectJobForComment(db: Queryable, jobId: string): Promise<CommentedJob | null> {
  const rows = await db.query<CommentedJob>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [jobId]);
  return rows[0] ?? null;
}

/** The project's enabled review_comment automations. */
export async function selectReviewCommentAutomations(
  db: Queryable,
  projectId: string,
): Promise<AutomationRow[]> {
  return db.query<AutomationRow>(
    `SELECT * FROM automations
      WHERE project_id = $1 AND enabled AND trigger ->> 'type' = 'review_comment'
      ORDER BY created_at, id`,
    [projectId],
  );
}

export interface StoredComment {
  comment_key: string;
  author: string;
  body: string;
  path: string | null;
  start_line: number | null;
  end_line: number | null;
  url: string | null;
  created_at: Date;
}

/** Keeps a comment for its thread's later prompts; a comment told again is kept once. */
export async function insertReviewComment(
  db: Queryable,
  c: {
    projectId: string;
    host: string;
    commentKey: string;
    jobId: string;
    threadKey: string;
    author: string;
    body: string;
    path: string | null;
    startLine: number | null;
    endLine: number | null;
    url: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO automation_review_comments
       (project_id, host, comment_key, job_id, thread_key, author, body, path, start_line, end_line, url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT DO NOTHING`,
    [
      c.projectId,
      c.host,
      c.commentKey,
      c.jobId,
      c.threadKey,
      c.author,
      c.body,
      c.path,
      c.startLine,
      c.endLine,
      c.url,
    ],
  );
}

/** The thread's comments on the job's pull request, oldest first, at most `limit` (the latest). */
export async function selectThreadComments(
  db: Queryable,
  jobId: string,
  threadKey: string,
  limit: number,
): Promise<StoredComment[]> {
  return db.query<StoredComment>(
    `SELECT * FROM (
       SELECT comment_key, author, body, path, start_line, end_line, url, created_at
         FROM automation_review_comments
        WHERE job_id = $1 AND thread_key = $2
        ORDER BY created_at DESC, comment_key DESC
        LIMIT $3) latest
      ORDER BY created_at, comment_key`,
    [jobId, threadKey, limit],
  );
}

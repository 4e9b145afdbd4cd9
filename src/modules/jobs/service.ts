// Agent jobs as the API sees them: create (idempotent, rate limited), read, list, follow up,
// cancel, archive. Running a job is the worker's business; this module only records intent and
// wakes it.

import { type JobStatus, type JobView, MAX_PROMPT_LENGTH } from '../../contract/index.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { httpErrors } from '../../errors/request-errors.ts';
import { chosenModel } from '../../models/model-spec.ts';
import { newId } from '../../util/random.ts';
import { requestHash as hashOfRequest } from '../../util/request-hash.ts';
import { HOUR_MS } from '../../util/time.ts';
import { getProject } from '../projects/index.ts';
import { checkBudget } from '../usage/index.ts';
import type { JobCodeSource } from './code-source.ts';
import { jobErrors } from './errors.ts';
import {
  countRecentPrompts,
  insertEvent,
  insertJob,
  insertPrompt,
  type JobRow,
  jobExistsInProject,
  lockProjectJobs,
  notifyJobQueued,
  selectIdempotencyKey,
  selectJob,
  selectJobForUpdate,
  selectJobPage,
  updateJobArchived,
  updateJobCancelled,
  updateJobReactivated,
  upsertIdempotencyKey,
} from './queries.ts';
import { selectPrompts } from './worker-queries.ts';

export interface JobServiceConfig {
  jobRateLimitPerHour: number;
  defaultModel: string | null;
}

export const MODEL_NOT_CONFIGURED_MESSAGE =
  'No model is configured for this project: set DOCWRIGHT_MODEL=provider:model on the server (with the provider API key, e.g. ANTHROPIC_API_KEY or OPENAI_API_KEY), or give the project a model with: docwright projects update <projectId> --model provider:model';

export function toJobView(r: JobRow): JobView {
  return {
    id: r.id,
    status: r.status,
    source: { repository: r.source_repository, ref: r.source_ref },
    model: r.model,
    prLink: r.pr_link,
    createdAt: r.created_at.toISOString(),
    archivedAt: r.archived_at?.toISOString() ?? null,
    prompt: r.prompt,
    branch: r.branch,
    summary: r.summary,
    error: r.error_code === null ? null : { code: r.error_code, message: r.error_message ?? '' },
    usage: r.usage,
    updatedAt: r.updated_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
  };
}

/** The model a job of this project is recorded with (chosenModel); null when none is set. */
async function modelOfProject(
  db: Queryable,
  config: JobServiceConfig,
  projectId: string,
): Promise<string | null> {
  const project = await getProject(db, projectId);
  return chosenModel(project.model, config.defaultModel);
}

/** Throws invalid_body unless the prompt has something besides whitespace. */
function checkPrompt(prompt: string): void {
  if (prompt.trim() === '') {
    throw httpErrors.invalid_body('Field "prompt" must not be empty or only whitespace.', {
      details: [{ location: 'body', name: 'prompt', message: 'must not be empty or only whitespace' }],
    });
  }
  // The route schema enforces this too; the service keeps it for callers other than HTTP.
  if ([...prompt].length > MAX_PROMPT_LENGTH) {
    throw httpErrors.invalid_body(`Field "prompt" must be at most ${MAX_PROMPT_LENGTH} characters.`, {
      details: [
        { location: 'body', name: 'prompt', message: `must be at most ${MAX_PROMPT_LENGTH} characters` },
      ],
    });
  }
}

/** Sliding-hour limit over the prompts ledger; run inside the project's job lock. */
async function enforceRateLimit(tx: Queryable, projectId: string, limit: number): Promise<void> {
  const recent = await countRecentPrompts(tx, projectId);
  if (recent.count < limit) return;
  const freeAt = (recent.oldest?.getTime() ?? Date.now()) + HOUR_MS;
  const retryAfter = Math.max(1, Math.ceil((freeAt - Date.now()) / 1000));
  throw httpErrors.rate_limited(
    `This project may create at most ${limit} jobs and follow-ups per hour; retry in ${retryAfter} s.`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
}

export async function createJob(
  db: Database,
  config: JobServiceConfig,
  input: {
    projectId: string;
    prompt: string;
    idempotencyKey: string | null;
    /** The code the job's agent may read (a code_change automation run's); else none. */
    codeSource?: JobCodeSource | null;
  },
): Promise<{ job: JobView; replayed: boolean }> {
  checkPrompt(input.prompt);
  const requestHash = hashOfRequest({ prompt: input.prompt });
  const result = await db.transaction(async (tx) => {
    await lockProjectJobs(tx, input.projectId);
    if (input.idempotencyKey !== null) {
      const previous = await selectIdempotencyKey(tx, input.projectId, input.idempotencyKey);
      if (previous?.fresh) {
        if (previous.request_hash !== requestHash) {
          throw httpErrors.idempotency_key_reused(
            'This Idempotency-Key was already used with a different body; use a new key for a new job.',
          );
        }
        const job = await selectJob(tx, input.projectId, previous.job_id);
        if (job) return { job, replayed: true };
      }
    }
    await enforceRateLimit(tx, input.projectId, config.jobRateLimitPerHour);
    const project = await getProject(tx, input.projectId);
    await checkBudget(tx, project.id);
    const model = await modelOfProject(tx, config, project.id);
    const job = await insertJob(tx, {
      id: newId('job'),
      projectId: project.id,
      status: model === null ? 'failed' : 'active',
      prompt: input.prompt,
      repository: project.repositoryUrl,
      ref: project.ref,
      model: model ?? '',
      errorCode: model === null ? 'model_not_configured' : null,
      errorMessage: model === null ? MODEL_NOT_CONFIGURED_MESSAGE : null,
    });
    await insertPrompt(tx, {
      jobId: job.id,
      projectId: project.id,
      prompt: input.prompt,
      codeSource: input.codeSource ?? null,
    });
    await insertEvent(tx, job.id, 'created', { status: job.status });
    if (job.status === 'failed') {
      await insertEvent(tx, job.id, 'failed', { code: job.error_code, message: job.error_message });
    } else {
      await notifyJobQueued(tx, job.id);
    }
    if (input.idempotencyKey !== null) {
      await upsertIdempotencyKey(tx, {
        projectId: project.id,
        key: input.idempotencyKey,
        requestHash,
        jobId: job.id,
      });
    }
    return { job, replayed: false };
  });
  return { job: toJobView(result.job), replayed: result.replayed };
}

export async function getJob(db: Queryable, projectId: string, id: string): Promise<JobView> {
  const row = await selectJob(db, projectId, id);
  if (!row) throw jobErrors.job_not_found(`No job "${id}" in project "${projectId}".`);
  return toJobView(row);
}

export async function listJobs(
  db: Queryable,
  q: { projectId: string; status: JobStatus | null; limit: number; cursor: string | null },
): Promise<{ jobs: JobView[]; nextCursor: string | null }> {
  const after = q.cursor === null ? null : decodeCursor(q.cursor);
  if (after !== null && !(await jobExistsInProject(db, q.projectId, after))) {
    throw invalidCursor();
  }
  const rows = await selectJobPage(db, {
    projectId: q.projectId,
    status: q.status,
    after,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    jobs: page.map(toJobView),
    nextCursor: rows.length > q.limit && last ? encodeCursor(last.id) : null,
  };
}

// The cursor is opaque to clients; it names the last job of the page, whose (created_at, id)
// position stays put however many jobs are created meanwhile.
function encodeCursor(jobId: string): string {
  return Buffer.from(JSON.stringify({ after: jobId })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    // A NUL cannot be in a job id, and PostgreSQL would refuse to compare with it.
    if (typeof parsed.after === 'string' && !parsed.after.includes('\0')) return parsed.after;
  } catch {}
  throw invalidCursor();
}

function invalidCursor() {
  return httpErrors.invalid_parameter(
    'Query parameter "cursor" is not a cursor this server gave out; pass nextCursor from a previous page.',
    { details: [{ location: 'query', name: 'cursor', message: 'unknown cursor' }] },
  );
}

export async function followUpJob(
  db: Database,
  config: JobServiceConfig,
  input: { projectId: string; id: string; prompt: string; codeSource?: JobCodeSource | null },
): Promise<JobView> {
  checkPrompt(input.prompt);
  const row = await db.transaction(async (tx) => {
    await lockProjectJobs(tx, input.projectId);
    // Locked: an archive or cancel committing between this check and the update below would
    // otherwise make the update find nothing.
    const job = await selectJobForUpdate(tx, input.projectId, input.id);
    if (!job) throw jobErrors.job_not_found(`No job "${input.id}" in project "${input.projectId}".`);
    if (job.status === 'archived')
      throw jobErrors.job_archived('The job is archived; it takes no follow-ups.');
    if (job.status === 'active') {
      throw jobErrors.job_active(
        'The job is still running; send the follow-up after it ends, or cancel it first.',
      );
    }
    await enforceRateLimit(tx, input.projectId, config.jobRateLimitPerHour);
    await checkBudget(tx, input.projectId, job.id);
    const seq = await insertPrompt(tx, {
      jobId: job.id,
      projectId: input.projectId,
      prompt: input.prompt,
      codeSource: input.codeSource ?? null,
    });
    await insertEvent(tx, job.id, 'message', { seq });
    // A job that failed for want of a model can run once one is configured.
    const model = job.model || (await modelOfProject(tx, config, input.projectId));
    if (model === null) {
      await insertEvent(tx, job.id, 'failed', {
        code: 'model_not_configured',
        message: MODEL_NOT_CONFIGURED_MESSAGE,
      });
      return job;
    }
    const updated = await updateJobReactivated(tx, input.projectId, input.id, model);
    await notifyJobQueued(tx, job.id);
    return updated!;
  });
  return toJobView(row);
}

export async function cancelJob(db: Database, projectId: string, id: string): Promise<JobView> {
  const row = await db.transaction(async (tx) => {
    const cancelled = await updateJobCancelled(tx, projectId, id, 'Cancelled by a client request.');
    if (cancelled) {
      await insertEvent(tx, id, 'failed', { code: 'cancelled', message: cancelled.error_message });
      await notifyJobQueued(tx, id); // a worker running it listens too, and stops
      return cancelled;
    }
    const job = await selectJob(tx, projectId, id);
    if (!job) throw jobErrors.job_not_found(`No job "${id}" in project "${projectId}".`);
    throw jobErrors.job_not_active(`The job is ${job.status}; only an active job can be cancelled.`);
  });
  return toJobView(row);
}

export async function archiveJob(db: Database, projectId: string, id: string): Promise<JobView> {
  const row = await db.transaction(async (tx) => {
    const archived = await updateJobArchived(tx, projectId, id);
    if (archived) {
      await insertEvent(tx, id, 'archived');
      return archived;
    }
    const job = await selectJob(tx, projectId, id);
    if (!job) throw jobErrors.job_not_found(`No job "${id}" in project "${projectId}".`);
    if (job.status === 'archived') throw jobErrors.job_archived('The job is already archived.');
    throw jobErrors.job_active('The job is still running; cancel it before archiving it.');
  });
  return toJobView(row);
}

/** The job's prompts, the first one first. */
export async function listJobPrompts(db: Queryable, jobId: string): Promise<string[]> {
  return (await selectPrompts(db, jobId)).map((p) => p.prompt);
}

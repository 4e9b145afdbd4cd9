// The agent-job tools: the /v2 routes' operations (create, get, list, follow up, cancel, archive,
// events, diff), calling the jobs module's service functions as those routes do.
import {
  archiveJob,
  cancelJob,
  createJob,
  followUpJob,
  getJob,
  getJobDiff,
  listJobEvents,
  listJobs,
} from '../../modules/jobs/index.ts';
import { defineTool, type McpTool, READ_ONLY } from '../tool.ts';
import {
  CreateJobInput,
  FollowUpInput,
  JobDiffOutput,
  JobEventsInput,
  JobEventsOutput,
  JobIdInput,
  JobListOutput,
  JobOutput,
  ListJobsInput,
} from '../tool-schemas.ts';
import { waitForJobEnd } from '../wait-for-job.ts';

const WRITES = { readOnlyHint: false, openWorldHint: true } as const;
const POLL_NOTE =
  'The job runs in the background: its status is active until it is completed, failed or archived; poll get_job (or pass waitSeconds) to see the outcome and prLink.';

const createJobTool = defineTool({
  name: 'create_job',
  title: 'Create an agent job',
  description: `Starts an agent job on the project's docs repository: the agent edits files as the prompt asks and opens a pull request when files changed (prLink). ${POLL_NOTE} Rate limited per project (creations plus follow-ups per hour). Same as POST /v2/agent/{projectId}/job.`,
  access: 'write',
  input: CreateJobInput,
  output: JobOutput,
  annotations: { ...WRITES, destructiveHint: false, idempotentHint: false },
  async run(context, args) {
    const { job, replayed } = await createJob(context.db, context.config, {
      projectId: context.projectId,
      prompt: args.prompt,
      idempotencyKey: args.idempotencyKey ?? null,
    });
    if (!replayed && job.status === 'active') context.onJobQueued?.(job.id);
    const notes = replayed ? [`Idempotency key seen before: this is the job it created (${job.id}).`] : [];
    const seconds = args.waitSeconds ?? 0;
    if (seconds === 0 || job.status !== 'active') return { value: job, notes };
    const waited = await waitForJobEnd(context.db, context.projectId, job.id, {
      seconds,
      signal: context.signal,
      onProgress: (elapsed, current) =>
        context.progress(
          elapsed,
          seconds,
          `${current.id} is ${current.status} after ${Math.floor(elapsed)} s`,
        ),
    });
    if (waited.stillActive) {
      notes.push(`The job is still active after the wait; call get_job with jobId "${job.id}" later.`);
    }
    return { value: waited.job, notes };
  },
});

const getJobTool = defineTool({
  name: 'get_job',
  title: 'Get an agent job',
  description:
    'One job of the project: status, prLink once the pull request exists, summary, error when failed, usage. Same as GET /v2/agent/{projectId}/job/{id}.',
  access: 'read',
  input: JobIdInput,
  output: JobOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await getJob(context.db, context.projectId, args.jobId) };
  },
});

const listJobsTool = defineTool({
  name: 'list_jobs',
  title: 'List agent jobs',
  description:
    "The project's jobs, newest first, optionally of one status. Pass nextCursor back as cursor for the next page. Same as GET /v2/agent/{projectId}/jobs.",
  access: 'read',
  input: ListJobsInput,
  output: JobListOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    const value = await listJobs(context.db, {
      projectId: context.projectId,
      status: args.status ?? null,
      limit: args.limit ?? 20,
      cursor: args.cursor ?? null,
    });
    return { value };
  },
});

const followUpTool = defineTool({
  name: 'follow_up_job',
  title: 'Send a follow-up to a job',
  description: `Continues a completed or failed job on the same branch and pull request with a new prompt: the job becomes active again. Refused while the job is active and once it is archived. ${POLL_NOTE} Same as POST .../job/{id}/message.`,
  access: 'write',
  input: FollowUpInput,
  output: JobOutput,
  annotations: { ...WRITES, destructiveHint: false, idempotentHint: false },
  async run(context, args) {
    const job = await followUpJob(context.db, context.config, {
      projectId: context.projectId,
      id: args.jobId,
      prompt: args.prompt,
    });
    if (job.status === 'active') context.onJobQueued?.(job.id);
    return { value: job };
  },
});

const cancelTool = defineTool({
  name: 'cancel_job',
  title: 'Cancel an active job',
  description:
    'The job becomes failed with error.code "cancelled"; a running agent stops within seconds (its pushed work stays). Refused when the job is not active. Same as POST .../job/{id}/cancel.',
  access: 'write',
  input: JobIdInput,
  output: JobOutput,
  annotations: { ...WRITES, openWorldHint: false, destructiveHint: true, idempotentHint: false },
  async run(context, args) {
    return { value: await cancelJob(context.db, context.projectId, args.jobId) };
  },
});

const archiveTool = defineTool({
  name: 'archive_job',
  title: 'Archive a finished job',
  description:
    'Status becomes archived and archivedAt is set; an archived job takes no follow-ups. Refused while the job is active or when already archived. Same as POST .../job/{id}/archive.',
  access: 'write',
  input: JobIdInput,
  output: JobOutput,
  annotations: { ...WRITES, openWorldHint: false, destructiveHint: true, idempotentHint: false },
  async run(context, args) {
    return { value: await archiveJob(context.db, context.projectId, args.jobId) };
  },
});

const eventsTool = defineTool({
  name: 'list_job_events',
  title: "Read a job's events",
  description:
    "What the job did, oldest first: created, started, tool calls, commits, push, pull request, completed or failed (docs/job-events.md). At most limit events after the id `after`; pass the last event's id as after for the next page. Same as GET .../job/{id}/events?format=json.",
  access: 'read',
  input: JobEventsInput,
  output: JobEventsOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    await getJob(context.db, context.projectId, args.jobId); // job_not_found for another project's job
    const events = await listJobEvents(context.db, args.jobId, args.after ?? 0, args.limit ?? 1000);
    return { value: { events } };
  },
});

const diffTool = defineTool({
  name: 'get_job_diff',
  title: "Read a job's diff",
  description:
    "The unified diff of the job's changes, saved when the agent commits (a follow-up replaces it); cut, with truncated true, past 5 MiB. job_diff_not_found while the job has none (still running, no file changed, failed before committing). Same as GET .../job/{id}/diff.",
  access: 'read',
  input: JobIdInput,
  output: JobDiffOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await getJobDiff(context.db, context.projectId, args.jobId) };
  },
});

export const JOB_TOOLS: readonly McpTool[] = [
  createJobTool,
  getJobTool,
  listJobsTool,
  followUpTool,
  cancelTool,
  archiveTool,
  eventsTool,
  diffTool,
];

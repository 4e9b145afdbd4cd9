// The agent job, its events and its diff as the API shows them. The public contract's fields come
// first; the rest are additive.
import { type Static, Type } from 'typebox';
import { JOB_EVENT_TYPES } from './job-events.ts';
import { JobUsageCostFields } from './usage.ts';

export const JobStatusSchema = Type.Union([
  Type.Literal('active'),
  Type.Literal('completed'),
  Type.Literal('archived'),
  Type.Literal('failed'),
]);

/** The longest prompt accepted, in characters (create and follow-up). */
export const MAX_PROMPT_LENGTH = 50_000;

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const JobSchema = Type.Object(
  {
    id: Type.String({ description: 'Unique identifier of the job (job_...).' }),
    status: {
      ...JobStatusSchema,
      description: 'active → completed | failed; completed or failed → archived, or → active on a follow-up.',
    },
    source: Type.Object({
      repository: Type.String({ description: "The project's repository URL." }),
      ref: Type.String({ description: 'The branch the agent starts from.' }),
    }),
    model: Type.String({
      description: 'The model used, written provider:model ("" when no model was configured).',
    }),
    prLink: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: 'Web URL of the pull request; null while active and when no files changed.',
    }),
    createdAt: Timestamp,
    archivedAt: Type.Union([Timestamp, Type.Null()], { description: 'Null unless the job is archived.' }),
    prompt: Type.String({ description: 'The prompt the job was created with.' }),
    branch: Type.Union([Type.String(), Type.Null()], { description: 'The branch holding the agent’s work.' }),
    summary: Type.Union([Type.String(), Type.Null()], { description: "The agent's account of what it did." }),
    error: Type.Union(
      [
        Type.Object({
          code: Type.String({
            description: 'Why the job failed, e.g. cancelled, model_error, push_rejected.',
          }),
          message: Type.String(),
        }),
        Type.Null(),
      ],
      { description: 'Set when status is failed.' },
    ),
    usage: Type.Union(
      [
        Type.Object({
          inputTokens: Type.Integer(),
          outputTokens: Type.Integer(),
          steps: Type.Integer(),
          ...JobUsageCostFields,
        }),
        Type.Null(),
      ],
      { description: 'Tokens, steps and cost of the last run, and total over every run, once it ran.' },
    ),
    updatedAt: Timestamp,
    completedAt: NullableTimestamp,
  },
  { $id: 'Job', title: 'Agent job' },
);
export type JobView = Static<typeof JobSchema>;

export const PromptBodySchema = Type.Object(
  {
    prompt: Type.String({
      minLength: 1,
      maxLength: MAX_PROMPT_LENGTH,
      description: `The instruction for the agent: 1 to ${MAX_PROMPT_LENGTH} characters, not only whitespace.`,
    }),
  },
  { additionalProperties: true },
);

/** A reference to the shared Job schema (registered once with app.addSchema). */
export const JobRef = Type.Unsafe<JobView>({ $ref: 'Job#' });

export const JobCreateHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes a retried create safe: the same key and body within 24 hours return the first job; the same key with another body answers 422.',
    }),
  ),
});

export const JobListQuerySchema = Type.Object({
  status: Type.Optional(JobStatusSchema),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const JobListSchema = Type.Object(
  {
    jobs: Type.Array(JobRef),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as cursor to get the next page; null on the last page.',
    }),
  },
  { title: 'Job list' },
);

export const JobEventSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Increases within a job; the SSE id to resume after.' }),
    type: Type.String({ description: `${JOB_EVENT_TYPES.join(', ')}, ...` }),
    createdAt: Type.String({ format: 'date-time' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Depends on the type; see docs/job-events.md.',
    }),
  },
  { $id: 'JobEvent', title: 'Job event' },
);
export type JobEventView = Static<typeof JobEventSchema>;

/** The largest event id a client may name (after=, Last-Event-ID). */
export const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

export const JobEventsQuerySchema = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_EVENT_ID,
      description: 'Only events with a larger id. A Last-Event-ID header, when present, wins.',
    }),
  ),
  format: Type.Optional(
    Type.Union([Type.Literal('sse'), Type.Literal('json')], {
      description: 'sse (the default) or json; without it, Accept: application/json selects json.',
    }),
  ),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 1000,
    description: 'JSON only: at most this many events; pass the last id as after for the next page.',
  }),
});

export const JobEventsHeadersSchema = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ description: 'Resume after this event id (sent by EventSource on reconnect).' }),
  ),
});

/** The largest diff stored whole; a longer one is cut and ends with a note. */
export const MAX_DIFF_BYTES = 5 * 1024 * 1024;

export const JobDiffSchema = Type.Object(
  {
    diff: Type.String({ description: 'Unified diff of the job’s branch against its base.' }),
    truncated: Type.Boolean({
      description: `True when the diff was over ${MAX_DIFF_BYTES / (1024 * 1024)} MiB and was cut (the text ends with a note).`,
    }),
    totalBytes: Type.Integer({ description: 'Size of the whole diff in UTF-8 bytes.' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When the diff was saved (the last run).' }),
  },
  { title: 'Job diff' },
);

export const JobDiffQuerySchema = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('diff'), Type.Literal('json')])),
});

// The tools' input and output schemas, built from the wire contract's TypeBox schemas (the same
// ones the HTTP routes validate and document with), so a tool cannot accept or promise what the
// API does not. MCP wants plain JSON Schema with an object at the root: toToolSchema() turns a
// TypeBox schema into that, inlining the shared schemas the routes refer to with $ref.
import { type TObject, type TSchema, Type } from 'typebox';
import {
  AgentReportSchema,
  AgentsQuerySchema,
  JobCreateHeadersSchema,
  JobDiffSchema,
  JobEventSchema,
  JobEventsQuerySchema,
  JobListQuerySchema,
  JobParamsSchema,
  JobSchema,
  McpToolReportSchema,
  PageViewReportSchema,
  PromptBodySchema,
  ReferralReportSchema,
  TimeseriesQuerySchema,
  TimeseriesReportSchema,
  UsageQuerySchema,
  UsageReportSchema,
  ViewsQuerySchema,
  VisitorReportSchema,
} from '../contract/index.ts';

/** The longest a create_job call may wait for the job to end, in seconds. */
export const MAX_WAIT_SECONDS = 600;

const Optional = Type.Optional;
/** Tools refuse arguments they do not know (a misspelt one would otherwise be ignored silently). */
const closed = { additionalProperties: false } as const;

const jobId = Type.String({ ...JobParamsSchema.properties.id, minLength: 1, maxLength: 200 });
const prompt = PromptBodySchema.properties.prompt;

export const CreateJobInput = Type.Object(
  {
    prompt,
    idempotencyKey: Optional(
      Type.String({
        pattern: '^[\\x21-\\x7e]{1,255}$',
        description: `${(JobCreateHeadersSchema.properties['idempotency-key'] as { description?: string }).description ?? ''} 1 to 255 printable ASCII characters without spaces (the HTTP API's Idempotency-Key header).`,
      }),
    ),
    waitSeconds: Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_SECONDS,
        default: 0,
        description: `Wait up to this many seconds (0 to ${MAX_WAIT_SECONDS}) for the job to end before answering; 0 (the default) answers at once with status active. A job still active when the wait ends is returned as it is: call get_job later. Many MCP clients give up on a call after 60 s unless it reports progress; docwright reports progress every few seconds to clients that ask for it.`,
      }),
    ),
  },
  closed,
);

export const JobIdInput = Type.Object({ jobId }, closed);

export const FollowUpInput = Type.Object({ jobId, prompt }, closed);

export const ListJobsInput = Type.Object(
  {
    status: Optional(JobListQuerySchema.properties.status),
    limit: Optional(JobListQuerySchema.properties.limit),
    cursor: Optional(JobListQuerySchema.properties.cursor),
  },
  closed,
);

export const JobEventsInput = Type.Object(
  {
    jobId,
    after: Optional(JobEventsQuerySchema.properties.after),
    limit: Optional({
      ...JobEventsQuerySchema.properties.limit,
      description: 'At most this many events (1 to 1000); pass the last id as after for the next page.',
    }),
  },
  closed,
);

export const ViewsInput = Type.Object(ViewsQuerySchema.properties, closed);
export const AgentsInput = Type.Object(AgentsQuerySchema.properties, closed);
// The visitors and referrals exports take the same query as /views.
export const VisitorsInput = ViewsInput;
export const ReferralsInput = ViewsInput;
export const McpToolsInput = ViewsInput;
export const TimeseriesInput = Type.Object(TimeseriesQuerySchema.properties, closed);
export const UsageInput = Type.Object(UsageQuerySchema.properties, closed);

export const JobOutput = JobSchema;
export const JobListOutput = Type.Object({
  jobs: Type.Array(JobSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor to get the next page; null on the last page.',
  }),
});
export const JobEventsOutput = Type.Object({
  events: Type.Array(JobEventSchema, { description: 'Oldest first.' }),
});
export const JobDiffOutput = JobDiffSchema;
export const ViewsOutput = PageViewReportSchema;
export const AgentsOutput = AgentReportSchema;
export const VisitorsOutput = VisitorReportSchema;
export const ReferralsOutput = ReferralReportSchema;
export const McpToolsOutput = McpToolReportSchema;
export const TimeseriesOutput = TimeseriesReportSchema;
export const UsageOutput = UsageReportSchema;

/** The contract's shared schemas by the $ref the routes use for them ("Job#"). */
const SHARED: Record<string, TSchema> = { Job: JobSchema, JobEvent: JobEventSchema };

export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/**
 * A TypeBox schema as plain JSON Schema for MCP: a copy without TypeBox's own markers and without
 * $id (a client compiles every tool's schema into one validator, where two equal ids collide),
 * with each $ref to a shared schema replaced by that schema.
 */
export function toToolSchema(schema: TObject): JsonSchemaObject {
  return plain(schema) as JsonSchemaObject;
}

function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const shared = SHARED[record.$ref.replace(/#$/, '')];
    if (shared) return plain(shared);
  }
  const out: Record<string, unknown> = {};
  // Object.keys skips TypeBox's symbol-keyed markers; '~'-prefixed keys are its own too.
  for (const key of Object.keys(record)) {
    if (key === '$id' || key.startsWith('~')) continue;
    out[key] = plain(record[key]);
  }
  return out;
}

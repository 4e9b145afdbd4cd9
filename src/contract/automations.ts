// Automations as the API shows them: an automation (one trigger, a prompt template, limits) and
// its runs. The trigger's fields are checked by the service, which names the field at fault;
// the schema here documents them and holds the shape of the rest.
import { type Static, Type } from 'typebox';
import { MAX_PROMPT_LENGTH } from './jobs.ts';

export const AUTOMATION_TRIGGER_TYPES = ['code_change', 'schedule', 'webhook', 'review_comment'] as const;
export type AutomationTriggerType = (typeof AUTOMATION_TRIGGER_TYPES)[number];
export const AUTOMATION_CODE_HOSTS = ['github', 'gitlab', 'gitea'] as const;
export type AutomationCodeHost = (typeof AUTOMATION_CODE_HOSTS)[number];

/** The largest body a trigger URL accepts, and how deep it may nest. */
export const MAX_TRIGGER_BODY_BYTES = 64 * 1024;
export const MAX_TRIGGER_BODY_DEPTH = 16;

const Timestamp = Type.String({ format: 'date-time' });

export const AutomationTriggerSchema = Type.Object(
  {
    type: Type.Union(
      [
        Type.Literal('code_change'),
        Type.Literal('schedule'),
        Type.Literal('webhook'),
        Type.Literal('review_comment'),
      ],
      { description: 'code_change, schedule, webhook or review_comment.' },
    ),
    host: Type.Optional(
      Type.Union([Type.Literal('github'), Type.Literal('gitlab'), Type.Literal('gitea')], {
        description: 'code_change: the code host of the watched repository.',
      }),
    ),
    repository: Type.Optional(
      Type.String({
        description: 'code_change: the watched repository, owner/name (GitLab: the full path).',
      }),
    ),
    on: Type.Optional(
      Type.Union([Type.Literal('merged_pull_request'), Type.Literal('push')], {
        description: 'code_change: a merged pull request (default) or a push.',
      }),
    ),
    branches: Type.Optional(
      Type.Array(Type.String(), { description: 'code_change: target branches watched (default ["main"]).' }),
    ),
    paths: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "code_change: only when a changed file starts with one of these prefixes (a trailing * is allowed); a merged pull request's files are read from the code repository.",
      }),
    ),
    labels: Type.Optional(
      Type.Array(Type.String(), {
        description: 'code_change with on: merged_pull_request: only pull requests with one of these labels.',
      }),
    ),
    mention: Type.Optional(
      Type.String({
        description:
          'review_comment: only comments that mention this handle (e.g. @docwright); every comment when left out.',
      }),
    ),
    cron: Type.Optional(Type.String({ description: 'schedule: a 5-field cron expression.' })),
    timezone: Type.Optional(
      Type.String({ description: 'schedule: an IANA time zone such as Europe/Berlin (default UTC).' }),
    ),
  },
  { additionalProperties: false, title: 'Automation trigger' },
);
export type AutomationTrigger = Static<typeof AutomationTriggerSchema>;

export const AutomationLimitsSchema = Type.Object(
  {
    maxOpenPullRequests: Type.Integer({
      minimum: 1,
      maximum: 100,
      description:
        "Runs are skipped while this many of the automation's jobs are running or have a pull request and are not archived (default 3).",
    }),
    dailyRunCap: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Runs started per UTC day; later ones are skipped (default 50).',
    }),
    grouping: Type.Boolean({
      description:
        "Add a run's change to the automation's latest open pull request as a follow-up instead of opening another (default false).",
    }),
    quietPeriodSeconds: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description:
        'code_change: wait this long after an event and gather the events meanwhile into one run (default 0).',
    }),
  },
  { additionalProperties: false, title: 'Automation limits' },
);
export type AutomationLimits = Static<typeof AutomationLimitsSchema>;

export const AutomationSchema = Type.Object(
  {
    id: Type.String({ description: 'The automation identifier (aut_...).' }),
    projectId: Type.String(),
    name: Type.String(),
    enabled: Type.Boolean(),
    trigger: AutomationTriggerSchema,
    promptTemplate: Type.String({
      description: 'The prompt of the jobs it starts; {{event.title}} and the like are filled from the run.',
    }),
    limits: AutomationLimitsSchema,
    triggerUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'webhook: where to POST to start a run (with the trigger secret as a bearer token).',
    }),
    nextRunAt: Type.Union([Timestamp, Type.Null()], { description: 'schedule: when it fires next.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    triggerSecret: Type.Optional(
      Type.String({
        description:
          'webhook: the trigger secret, shown only in the answer that created or rotated it (dwt_...).',
      }),
    ),
  },
  { $id: 'Automation', title: 'Automation' },
);
export type AutomationView = Static<typeof AutomationSchema>;
export const AutomationRef = Type.Unsafe<AutomationView>({ $ref: 'Automation#' });

const Name = Type.String({ minLength: 1, maxLength: 200 });
const PromptTemplate = Type.String({ minLength: 1, maxLength: MAX_PROMPT_LENGTH });

export const AutomationCreateBodySchema = Type.Object(
  {
    name: Name,
    enabled: Type.Optional(Type.Boolean()),
    trigger: AutomationTriggerSchema,
    promptTemplate: PromptTemplate,
    limits: Type.Optional(Type.Partial(AutomationLimitsSchema)),
  },
  { additionalProperties: false },
);
export type AutomationCreateBody = Static<typeof AutomationCreateBodySchema>;

export const AutomationUpdateBodySchema = Type.Object(
  {
    name: Type.Optional(Name),
    enabled: Type.Optional(Type.Boolean()),
    trigger: Type.Optional(AutomationTriggerSchema),
    promptTemplate: Type.Optional(PromptTemplate),
    limits: Type.Optional(Type.Partial(AutomationLimitsSchema)),
    rotateTriggerSecret: Type.Optional(
      Type.Boolean({
        description: 'webhook: make a new trigger secret (shown once); the old one stops working.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AutomationUpdateBody = Static<typeof AutomationUpdateBodySchema>;

export const AutomationListSchema = Type.Object(
  { automations: Type.Array(AutomationRef) },
  { title: 'Automation list' },
);

export const AutomationParamsSchema = Type.Object({
  projectId: Type.String({ description: 'The project identifier (prj_...).' }),
  automationId: Type.String({ description: 'The automation identifier (aut_...).' }),
});

export const AutomationRunSchema = Type.Object(
  {
    id: Type.String({ description: 'The run identifier (run_...).' }),
    automationId: Type.String(),
    trigger: Type.Union(
      [
        Type.Literal('code_change'),
        Type.Literal('schedule'),
        Type.Literal('webhook'),
        Type.Literal('review_comment'),
      ],
      { description: 'What fired it.' },
    ),
    status: Type.Union([Type.Literal('queued'), Type.Literal('started'), Type.Literal('skipped')], {
      description: 'queued → started (jobId set) or skipped (skipReason says why).',
    }),
    jobId: Type.Union([Type.String(), Type.Null()], { description: 'The job it started or followed up.' }),
    followedUp: Type.Boolean({ description: 'Grouping: the run became a follow-up on an open job.' }),
    skipReason: Type.Union([Type.String(), Type.Null()]),
    sources: Type.Array(Type.String(), {
      description:
        'code_change: the pull requests or commits it follows (web URLs); review_comment: the comment (web URL).',
    }),
    dueAt: Timestamp,
    createdAt: Timestamp,
    startedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'AutomationRun', title: 'Automation run' },
);
export type AutomationRunView = Static<typeof AutomationRunSchema>;

export const AutomationRunListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const AutomationRunListSchema = Type.Object(
  {
    runs: Type.Array(Type.Unsafe<AutomationRunView>({ $ref: 'AutomationRun#' })),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Automation run list' },
);

export const TriggerAcceptedSchema = Type.Object(
  { runId: Type.String(), status: Type.Literal('queued') },
  { title: 'Trigger accepted' },
);

export const InboundHookParamsSchema = Type.Object({
  projectId: Type.String({ description: 'The project identifier (prj_...).' }),
});

export const InboundHookAnswerSchema = Type.Object(
  {
    received: Type.Boolean(),
    runs: Type.Array(Type.String(), { description: 'Runs queued or extended by this delivery.' }),
    ignored: Type.Union([Type.String(), Type.Null()], {
      description: 'Why nothing was queued (an event no automation watches, a redelivery...).',
    }),
    ci: Type.Optional(
      Type.Object(
        {
          sha: Type.Union([Type.String(), Type.Null()], { description: 'The commit the CI event names.' }),
          jobs: Type.Array(Type.String(), {
            description: 'Jobs whose CI watch of that commit polls the code host now (docs/ci-follow-up.md).',
          }),
        },
        { description: 'Present for CI events: check_run, check_suite, status, pipeline.' },
      ),
    ),
  },
  { title: 'Inbound webhook answer' },
);

// What agent jobs cost, as the API shows it: the usage fields a job carries (additive to the
// contract's job), and the usage export (GET /v2/agent/{projectId}/usage, docs/cost-and-budgets.md).
import { type Static, Type } from 'typebox';
import { ACCEPTED_DATE_FORMATS } from './analytics.ts';

const Tokens = (description: string) => Type.Integer({ minimum: 0, description });
const Cost = (description: string) => Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description });

/** Token counts and cost of some model calls: a run's, a job's, or a row of the export. */
const UsageCounts = {
  inputTokens: Tokens('Input tokens, cache reads and cache writes included.'),
  outputTokens: Tokens('Output tokens (reasoning included).'),
  cacheReadTokens: Tokens('Of inputTokens: read from the provider’s prompt cache.'),
  cacheWriteTokens: Tokens('Of inputTokens: written into the provider’s prompt cache.'),
};

/** The usage across every run of a job (its first prompt and its follow-ups). */
export const JobUsageTotalSchema = Type.Object(
  {
    ...UsageCounts,
    steps: Tokens('Model calls over every run.'),
    costUsd: Cost('What every run cost in US dollars; null when a call had no price.'),
  },
  { description: 'Every run of the job added up: the first prompt and each follow-up.' },
);

/** The fields a job's usage gains beside the tokens and steps it always had. */
export const JobUsageCostFields = {
  cacheReadTokens: Type.Optional(UsageCounts.cacheReadTokens),
  cacheWriteTokens: Type.Optional(UsageCounts.cacheWriteTokens),
  costUsd: Type.Optional(
    Cost(
      'What the run cost in US dollars at the price table’s prices when each call was made; null when the model has no price (costNote says so).',
    ),
  ),
  costNote: Type.Optional(Type.String({ description: 'Why costUsd is null.' })),
  total: Type.Optional(JobUsageTotalSchema),
};

export const USAGE_GROUPS = ['day', 'model', 'job'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export const UsageQuerySchema = Type.Object({
  dateFrom: Type.Optional(
    Type.String({
      description: `Inclusive start: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts from the start of that hour. Omitted: unbounded.`,
      examples: ['2026-11-01'],
    }),
  ),
  dateTo: Type.Optional(
    Type.String({
      description: `Exclusive end: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts up to the end of that hour. Must be later than dateFrom. Omitted: unbounded.`,
      examples: ['2026-12-01'],
    }),
  ),
  groupBy: Type.Optional(
    Type.Union([Type.Literal('day'), Type.Literal('model'), Type.Literal('job')], {
      default: 'day',
      description: 'One row per UTC day (the default), per model (provider:model), or per job.',
    }),
  ),
});
export type UsageQuery = Static<typeof UsageQuerySchema>;

const UsageSums = {
  calls: Tokens('Model calls (agent steps).'),
  ...UsageCounts,
  costUsd: Type.Number({ minimum: 0, description: 'US dollars of the priced calls.' }),
  unpricedCalls: Tokens('Calls of a model with no price: their tokens are counted, their cost is not.'),
};

export const UsageReportSchema = Type.Object(
  {
    groupBy: Type.Union([Type.Literal('day'), Type.Literal('model'), Type.Literal('job')]),
    totals: Type.Object(UsageSums, { description: 'Sums over every row.' }),
    rows: Type.Array(
      Type.Object({
        key: Type.String({
          description: 'The UTC day (YYYY-MM-DD), the model (provider:model) or the job id (job_...).',
        }),
        ...UsageSums,
      }),
      { description: 'Rows with at least one call: days in time order, models and jobs by cost descending.' },
    ),
    range: Type.Object(
      {
        from: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        to: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      },
      { description: 'The hours counted (bounds widen to whole UTC hours); null when a bound was omitted.' },
    ),
    budget: Type.Object(
      {
        month: Type.String({ description: 'The current UTC month, YYYY-MM.' }),
        spentUsd: Type.Number({ minimum: 0, description: 'Spent this month by the project.' }),
        monthlyBudgetUsd: Type.Union([Type.Number(), Type.Null()], {
          description: 'The project’s monthly budget; null when it has none.',
        }),
        jobCostCapUsd: Type.Union([Type.Number(), Type.Null()], {
          description: 'The project’s cap per job; null when it has none.',
        }),
      },
      { description: 'The project’s budget as it stands now, whatever the range asked.' },
    ),
  },
  { $id: 'UsageReport', title: 'Usage report' },
);
export type UsageReport = Static<typeof UsageReportSchema>;
